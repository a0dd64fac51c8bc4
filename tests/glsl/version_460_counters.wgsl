struct Counters {
    pixels: atomic<u32>,
    signed_balance: atomic<i32>,
    per_row: array<atomic<u32>, 16>,
}

var<private> gl_LocalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> counters: Counters;

fn main_1() {
    var p: vec2<u32>;

    let _e7 = gl_LocalInvocationID_1;
    p = _e7.xy;
    let _e10 = atomicAdd((&counters.pixels), 1u);
    let _e13 = p[0u];
    let _e15 = p[1u];
    let _e18 = atomicAdd((&counters.signed_balance), select(-1i, 1i, (_e13 < _e15)));
    let _e20 = p[1u];
    let _e24 = p[0u];
    let _e25 = atomicAdd((&counters.per_row[_e20]), _e24);
    return;
}

@compute @workgroup_size(16, 16, 1) 
fn main(@builtin(local_invocation_id) gl_LocalInvocationID: vec3<u32>) {
    gl_LocalInvocationID_1 = gl_LocalInvocationID;
    main_1();
}
