struct Input {
    values: array<f32>,
}

struct Output {
    positive: atomic<u32>,
}

var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> local_positive: atomic<u32>;
@group(0) @binding(0) 
var<storage> inp: Input;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> outp: Output;

fn main_1() {
    let _e8 = gl_LocalInvocationIndex_1;
    if (_e8 == 0u) {
        atomicStore((&local_positive), 0u);
    }
    workgroupBarrier();
    let _e11 = gl_GlobalInvocationID_1[0u];
    let _e14 = inp.values[_e11];
    if (_e14 > 0f) {
        let _e16 = atomicAdd((&local_positive), 1u);
    }
    workgroupBarrier();
    let _e17 = gl_LocalInvocationIndex_1;
    if (_e17 == 0u) {
        let _e20 = atomicLoad((&local_positive));
        let _e21 = atomicAdd((&outp.positive), _e20);
    }
    return;
}

@compute @workgroup_size(128, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32, @builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
