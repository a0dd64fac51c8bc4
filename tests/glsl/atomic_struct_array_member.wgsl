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

fn bump_u0028_u1_u003b(cell: ptr<function, u32>) -> u32 {
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

    let _e15 = gl_GlobalInvocationID_1[0u];
    id = _e15;
    let _e16 = id;
    cell_1 = (_e16 % 16u);
    let _e18 = cell_1;
    param = _e18;
    let _e19 = bump_u0028_u1_u003b((&param));
    rank = _e19;
    let _e20 = cell_1;
    let _e25 = id;
    let _e26 = atomicMin((&grid.cells[_e20].span[0u]), _e25);
    let _e27 = cell_1;
    let _e32 = id;
    let _e33 = atomicMax((&grid.cells[_e27].span[1u]), _e32);
    tries = 0u;
    loop {
        let _e34 = cell_1;
        let _e38 = id;
        loop {
            let _e90 = atomicCompareExchangeWeak((&grid.cells[_e34].owner), 0u, (_e38 + 1u));
            atomic_compare_old = _e90.old_value;
            if (_e90.exchanged || (_e90.old_value != 0u)) {
                break;
            }
        }
        let _e41 = atomic_compare_old;
        let _e43 = tries;
        if ((_e41 != 0u) && (_e43 < 1u)) {
            let _e46 = tries;
            tries = (_e46 + bitcast<u32>(1i));
            continue;
        } else {
            break;
        }
    }
    storageBarrier();
    workgroupBarrier();
    let _e49 = rank;
    if (_e49 == 0u) {
        let _e51 = cell_1;
        let _e52 = cell_1;
        let _e56 = atomicLoad((&grid.cells[_e52].count));
        snap.copy[_e51].count = _e56;
        let _e60 = cell_1;
        let _e61 = cell_1;
        let _e65 = atomicLoad((&grid.cells[_e61].owner));
        snap.copy[_e60].owner = _e65;
        let _e69 = cell_1;
        let _e70 = cell_1;
        let _e75 = atomicLoad((&grid.cells[_e70].span[0u]));
        let _e76 = cell_1;
        let _e81 = atomicLoad((&grid.cells[_e76].span[1u]));
        let _e82 = vec2<u32>(_e75, _e81);
        snap.copy[_e69].span[0u] = _e82.x;
        snap.copy[_e69].span[1u] = _e82.y;
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
