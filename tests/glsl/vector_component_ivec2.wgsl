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

    let _e12 = gl_GlobalInvocationID_1[0u];
    let _e15 = pts.points[_e12];
    p = _e15;
    let _e19 = p[0u];
    let _e20 = atomicMin((&box.lo[0u]), _e19);
    let _e24 = p[1u];
    let _e25 = atomicMin((&box.lo[1u]), _e24);
    let _e29 = p[0u];
    let _e30 = atomicMax((&box.hi[0u]), _e29);
    let _e34 = p[1u];
    let _e35 = atomicMax((&box.hi[1u]), _e34);
    storageBarrier();
    workgroupBarrier();
    let _e36 = gl_LocalInvocationIndex_1;
    if (_e36 == 0u) {
        let _e40 = atomicLoad((&box.lo[0u]));
        let _e42 = atomicLoad((&box.lo[1u]));
        lo = vec2<i32>(_e40, _e42);
        let _e46 = atomicLoad((&box.hi[0u]));
        let _e48 = atomicLoad((&box.hi[1u]));
        hi = vec2<i32>(_e46, _e48);
        let _e50 = hi;
        let _e51 = lo;
        box.extent = (_e50 - _e51);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>, @builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}
