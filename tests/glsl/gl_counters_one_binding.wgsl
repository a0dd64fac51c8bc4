struct Log {
    before: array<u32>,
}

struct gl_AtomicCounterBlock_0_ {
    allocated: atomic<u32>,
    released: atomic<u32>,
    _pad0_: u32,
    peak: u32,
    probes: atomic<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: gl_AtomicCounterBlock_0_;
@group(0) @binding(0) 
var<storage, read_write> unnamed_1: Log;

fn main_1() {
    var i: u32;
    var a: u32;

    let _e9 = gl_GlobalInvocationID_1[0u];
    i = _e9;
    let _e11 = atomicAdd((&unnamed.allocated), 1u);
    a = _e11;
    let _e12 = i;
    if ((_e12 & 1u) == 0u) {
        let _e16 = atomicAdd((&unnamed.released), 4294967295u);
    }
    let _e18 = atomicAdd((&unnamed.probes), 1u);
    let _e19 = i;
    let _e20 = a;
    let _e22 = unnamed.peak;
    unnamed_1.before[_e19] = (_e20 + _e22);
    return;
}

@compute @workgroup_size(32, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
