struct Slots {
    slots: array<u32>,
}

struct Keys {
    keys: array<u32>,
}

struct gl_AtomicCounterBlock_0_ {
    buckets: array<atomic<u32>, 4>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Slots;
@group(0) @binding(2) 
var<storage, read_write> unnamed_1: gl_AtomicCounterBlock_0_;
@group(0) @binding(0) 
var<storage> unnamed_2: Keys;

fn main_1() {
    var i: u32;

    let _e9 = gl_GlobalInvocationID_1[0u];
    i = _e9;
    let _e10 = i;
    let _e11 = i;
    let _e14 = unnamed_2.keys[_e11];
    let _e18 = atomicAdd((&unnamed_1.buckets[(_e14 & 3u)]), 1u);
    unnamed.slots[_e10] = _e18;
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
