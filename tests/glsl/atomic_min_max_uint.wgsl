struct Depths {
    depth: array<u32>,
}

struct Bounds {
    data: array<atomic<u32>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage> depths: Depths;
@group(0) @binding(1) 
var<storage, read_write> bounds: Bounds;

fn main_1() {
    var i: u32;
    var d: u32;
    var cell: u32;
    var oldMin: u32;
    var oldMax: u32;

    let _e14 = gl_GlobalInvocationID_1[0u];
    i = _e14;
    let _e15 = i;
    let _e18 = depths.depth[_e15];
    d = _e18;
    let _e19 = i;
    cell = (_e19 / 64u);
    let _e21 = cell;
    let _e25 = d;
    let _e26 = atomicMin((&bounds.data[(2u * _e21)]), _e25);
    oldMin = _e26;
    let _e27 = cell;
    let _e32 = d;
    let _e33 = atomicMax((&bounds.data[((2u * _e27) + 1u)]), _e32);
    oldMax = _e33;
    let _e34 = oldMin;
    let _e36 = oldMax;
    if ((_e34 == 4294967295u) && (_e36 == 0u)) {
        return;
    }
    return;
}

@compute @workgroup_size(256, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
