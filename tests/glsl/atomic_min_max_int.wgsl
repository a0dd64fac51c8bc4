struct Samples {
    samples: array<i32>,
}

struct Range {
    lo: array<atomic<i32>, 4>,
    hi: array<atomic<i32>, 4>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage> unnamed: Samples;
@group(0) @binding(1) 
var<storage, read_write> range: Range;

fn main_1() {
    var i: u32;
    var s: i32;
    var lane: u32;

    let _e9 = gl_GlobalInvocationID_1[0u];
    i = _e9;
    let _e10 = i;
    let _e13 = unnamed.samples[_e10];
    s = _e13;
    let _e14 = i;
    lane = (_e14 & 3u);
    let _e16 = lane;
    let _e19 = s;
    let _e20 = atomicMin((&range.lo[_e16]), _e19);
    let _e21 = lane;
    let _e24 = s;
    let _e25 = atomicMax((&range.hi[_e21]), _e24);
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
