struct Cell {
    count: u32,
    owner: u32,
}

struct Snapshot {
    copy: array<Cell>,
}

struct Cell_1 {
    count: atomic<u32>,
    owner: u32,
}

struct Grid {
    cells: array<Cell_1>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> grid: Grid;
@group(0) @binding(1) 
var<storage, read_write> snap: Snapshot;

fn main_1() {
    var i: u32;
    var c: Cell;

    let _e9 = gl_GlobalInvocationID_1[0u];
    i = (_e9 % 16u);
    let _e11 = i;
    let _e15 = atomicAdd((&grid.cells[_e11].count), 1u);
    storageBarrier();
    workgroupBarrier();
    let _e16 = i;
    let _e21 = atomicLoad((&grid.cells[_e16].count));
    let _e22 = grid.cells[_e16].owner;
    let _e23 = Cell(_e21, _e22);
    c.count = _e23.count;
    c.owner = _e23.owner;
    let _e28 = i;
    let _e29 = c;
    snap.copy[_e28].count = _e29.count;
    snap.copy[_e28].owner = _e29.owner;
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
