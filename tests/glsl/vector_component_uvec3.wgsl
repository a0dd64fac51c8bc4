struct Tally {
    per_axis: array<atomic<u32>, 3>,
    total: atomic<u32>,
    exchanged: array<atomic<u32>, 3>,
    pad: u32,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> tally: Tally;
var<private> gl_LocalInvocationIndex_1: u32;

fn main_1() {
    var id: vec3<u32>;
    var old: u32;

    let _e9 = gl_GlobalInvocationID_1;
    id = _e9;
    let _e13 = id[0u];
    let _e14 = atomicAdd((&tally.per_axis[0u]), _e13);
    let _e18 = id[1u];
    let _e19 = atomicAdd((&tally.per_axis[1u]), _e18);
    let _e23 = id[0u];
    let _e25 = id[1u];
    let _e27 = atomicXor((&tally.per_axis[2u]), (_e23 ^ _e25));
    let _e29 = atomicAdd((&tally.total), 1u);
    let _e32 = gl_LocalInvocationIndex_1;
    let _e33 = atomicExchange((&tally.exchanged[2u]), _e32);
    old = _e33;
    let _e36 = old;
    let _e38 = atomicAnd((&tally.exchanged[0u]), (_e36 | 4294901760u));
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>, @builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}
