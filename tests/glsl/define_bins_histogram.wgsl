struct Input {
    samples: array<u32>,
}

struct Histogram {
    bins: array<atomic<u32>, 64>,
}

var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> s_bins: array<atomic<u32>, 64>;
@group(0) @binding(0) 
var<storage> inp: Input;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> hist: Histogram;

fn main_1() {
    var lid: u32;

    let _e9 = gl_LocalInvocationIndex_1;
    lid = _e9;
    let _e10 = lid;
    atomicStore((&s_bins[_e10]), 0u);
    workgroupBarrier();
    let _e13 = gl_GlobalInvocationID_1[0u];
    let _e16 = inp.samples[_e13];
    let _e19 = atomicAdd((&s_bins[(_e16 % 64u)]), 1u);
    workgroupBarrier();
    let _e20 = lid;
    let _e23 = lid;
    let _e25 = atomicLoad((&s_bins[_e23]));
    let _e26 = atomicAdd((&hist.bins[_e20]), _e25);
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32, @builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
