struct B {
    bins: array<atomic<u32>>,
}

const BINS: u32 = 16u;
const TWICE: u32 = 32u;
const WG: u32 = 64u;

@group(0) @binding(0) 
var<storage, read_write> unnamed: B;
var<private> gl_GlobalInvocationID_1: vec3<u32>;

fn main_1() {
    let _e6 = gl_GlobalInvocationID_1[0u];
    let _e10 = atomicAdd((&unnamed.bins[(_e6 % TWICE)]), 1u);
    return;
}

@compute @workgroup_size(1, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
