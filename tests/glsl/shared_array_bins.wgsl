struct Keys {
    keys: array<u32>,
}

struct Bins {
    bins: array<atomic<u32>, 64>,
}

var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> s_bins: array<atomic<u32>, 64>;
@group(0) @binding(0) 
var<storage> keys: Keys;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> global_bins: Bins;

fn main_1() {
    var lid: u32;
    var key: u32;
    var count: u32;

    let _e11 = gl_LocalInvocationIndex_1;
    lid = _e11;
    let _e12 = lid;
    atomicStore((&s_bins[_e12]), 0u);
    workgroupBarrier();
    let _e15 = gl_GlobalInvocationID_1[0u];
    let _e18 = keys.keys[_e15];
    key = (_e18 & 63u);
    let _e20 = key;
    let _e22 = atomicAdd((&s_bins[_e20]), 1u);
    workgroupBarrier();
    let _e23 = lid;
    let _e25 = atomicLoad((&s_bins[_e23]));
    count = _e25;
    let _e26 = count;
    if (_e26 != 0u) {
        let _e28 = lid;
        let _e31 = count;
        let _e32 = atomicAdd((&global_bins.bins[_e28]), _e31);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32, @builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
