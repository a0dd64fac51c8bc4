struct Keys {
    keys: array<u32>,
}

struct Counts {
    counts: array<atomic<u32>>,
}

struct Overflow {
    overflow: atomic<u32>,
}

@group(0) @binding(0) 
var<storage> unnamed: Keys;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed_1: Counts;
@group(0) @binding(3) 
var<storage, read_write> unnamed_2: Overflow;

fn main_1() {
    var k: u32;

    let _e8 = gl_GlobalInvocationID_1[0u];
    let _e11 = unnamed.keys[_e8];
    k = _e11;
    let _e12 = k;
    if (_e12 < bitcast<u32>(bitcast<i32>(arrayLength((&unnamed_1.counts))))) {
        let _e18 = k;
        let _e21 = atomicAdd((&unnamed_1.counts[_e18]), 1u);
    } else {
        let _e23 = atomicAdd((&unnamed_2.overflow), 1u);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
