struct Cell {
    count: u32,
    owner: u32,
    span: array<u32, 2>,
}

struct Snapshot {
    copy: array<Cell>,
}

struct Cell_1 {
    count: atomic<u32>,
    owner: atomic<u32>,
    span: array<atomic<u32>, 2>,
}

struct Grid {
    cells: array<Cell_1>,
}

@group(0) @binding(0) 
var<storage, read_write> grid: Grid;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> snap: Snapshot;

fn bump(cell: ptr<function, u32>) -> u32 {
    let _e3 = (*cell);
    let _e7 = atomicAdd((&grid.cells[_e3].count), 1u);
    return _e7;
}

fn main_1() {
    var id: u32;
    var cell_1: u32;
    var rank: u32;
    var param: u32;
    var tries: u32;
    var atomic_compare_old: u32;

    let _e13 = gl_GlobalInvocationID_1[0u];
    id = _e13;
    let _e14 = id;
    cell_1 = (_e14 % 16u);
    let _e16 = cell_1;
    param = _e16;
    let _e17 = bump((&param));
    rank = _e17;
    let _e18 = cell_1;
    let _e23 = id;
    let _e24 = atomicMin((&grid.cells[_e18].span[0u]), _e23);
    let _e25 = cell_1;
    let _e30 = id;
    let _e31 = atomicMax((&grid.cells[_e25].span[1u]), _e30);
    tries = 0u;
    loop {
        let _e32 = cell_1;
        let _e36 = id;
        loop {
            let _e88 = atomicCompareExchangeWeak((&grid.cells[_e32].owner), 0u, (_e36 + 1u));
            atomic_compare_old = _e88.old_value;
            if (_e88.exchanged || (_e88.old_value != 0u)) {
                break;
            }
        }
        let _e39 = atomic_compare_old;
        let _e41 = tries;
        if ((_e39 != 0u) && (_e41 < 1u)) {
            let _e44 = tries;
            tries = (_e44 + bitcast<u32>(1i));
            continue;
        } else {
            break;
        }
    }
    storageBarrier();
    workgroupBarrier();
    let _e47 = rank;
    if (_e47 == 0u) {
        let _e49 = cell_1;
        let _e50 = cell_1;
        let _e54 = atomicLoad((&grid.cells[_e50].count));
        snap.copy[_e49].count = _e54;
        let _e58 = cell_1;
        let _e59 = cell_1;
        let _e63 = atomicLoad((&grid.cells[_e59].owner));
        snap.copy[_e58].owner = _e63;
        let _e67 = cell_1;
        let _e68 = cell_1;
        let _e73 = atomicLoad((&grid.cells[_e68].span[0u]));
        let _e74 = cell_1;
        let _e79 = atomicLoad((&grid.cells[_e74].span[1u]));
        let _e80 = vec2<u32>(_e73, _e79);
        snap.copy[_e67].span[0u] = _e80.x;
        snap.copy[_e67].span[1u] = _e80.y;
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
