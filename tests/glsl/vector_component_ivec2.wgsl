struct Points {
    points: array<vec2<i32>>,
}

struct Box {
    lo: array<atomic<i32>, 2>,
    hi: array<atomic<i32>, 2>,
    extent: vec2<i32>,
}

@group(0) @binding(0) 
var<storage> pts: Points;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> box: Box;
var<private> gl_LocalInvocationIndex_1: u32;

fn main_1() {
    var p: vec2<i32>;
    var lo: vec2<i32>;
    var hi: vec2<i32>;

    let _e10 = gl_GlobalInvocationID_1[0u];
    let _e13 = pts.points[_e10];
    p = _e13;
    let _e17 = p[0u];
    let _e18 = atomicMin((&box.lo[0u]), _e17);
    let _e22 = p[1u];
    let _e23 = atomicMin((&box.lo[1u]), _e22);
    let _e27 = p[0u];
    let _e28 = atomicMax((&box.hi[0u]), _e27);
    let _e32 = p[1u];
    let _e33 = atomicMax((&box.hi[1u]), _e32);
    storageBarrier();
    workgroupBarrier();
    let _e34 = gl_LocalInvocationIndex_1;
    if (_e34 == 0u) {
        let _e38 = atomicLoad((&box.lo[0u]));
        let _e40 = atomicLoad((&box.lo[1u]));
        lo = vec2<i32>(_e38, _e40);
        let _e44 = atomicLoad((&box.hi[0u]));
        let _e46 = atomicLoad((&box.hi[1u]));
        hi = vec2<i32>(_e44, _e46);
        let _e48 = hi;
        let _e49 = lo;
        box.extent = (_e48 - _e49);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>, @builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}
