struct Queries {
    queries: array<u32>,
}

struct Log {
    log: array<u32>,
}

struct Counters {
    hits: atomic<u32>,
    misses: atomic<u32>,
}

@group(0) @binding(2) 
var<storage> unnamed: Queries;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> unnamed_1: Counters;
@group(0) @binding(1) 
var<storage, read_write> unnamed_2: Log;

fn main_1() {
    var q: u32;
    var slot: u32;

    let _e9 = gl_GlobalInvocationID_1[0u];
    let _e12 = unnamed.queries[_e9];
    q = _e12;
    let _e13 = q;
    if ((_e13 & 1u) == 0u) {
        let _e17 = atomicAdd((&unnamed_1.hits), 1u);
        slot = _e17;
        let _e18 = slot;
        let _e19 = q;
        unnamed_2.log[_e18] = _e19;
    } else {
        let _e23 = atomicAdd((&unnamed_1.misses), 1u);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
