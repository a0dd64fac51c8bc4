struct Input {
    values: array<u32>,
}

struct Params {
    threshold: u32,
    stride: u32,
    mask: u32,
}

struct Output {
    above: atomic<u32>,
    bits: atomic<u32>,
}

@group(0) @binding(1) 
var<storage> inp: Input;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<uniform> params: Params;
@group(0) @binding(2) 
var<storage, read_write> outp: Output;

fn main_1() {
    var v: u32;

    let _e8 = gl_GlobalInvocationID_1[0u];
    let _e10 = params.stride;
    let _e14 = inp.values[(_e8 * _e10)];
    v = _e14;
    let _e15 = v;
    let _e17 = params.threshold;
    if (_e15 > _e17) {
        let _e20 = atomicAdd((&outp.above), 1u);
        let _e22 = v;
        let _e24 = params.mask;
        let _e26 = atomicOr((&outp.bits), (_e22 & _e24));
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
