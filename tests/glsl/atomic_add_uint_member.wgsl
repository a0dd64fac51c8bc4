struct Counters {
    visits: atomic<u32>,
    odd_visits: atomic<u32>,
}

@group(1) @binding(2) 
var<storage, read_write> counters: Counters;
var<private> gl_GlobalInvocationID_1: vec3<u32>;

fn main_1() {
    let _e5 = atomicAdd((&counters.visits), 1u);
    let _e7 = gl_GlobalInvocationID_1[0u];
    if ((_e7 & 1u) == 1u) {
        let _e11 = atomicAdd((&counters.odd_visits), 1u);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
