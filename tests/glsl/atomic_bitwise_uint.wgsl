struct Masks {
    occupied: atomic<u32>,
    cleared: atomic<u32>,
    parity: atomic<u32>,
}

var<private> gl_LocalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> masks: Masks;

fn main_1() {
    var bit: u32;
    var before: u32;

    let _e8 = gl_LocalInvocationID_1[0u];
    bit = (1u << bitcast<u32>(_e8));
    let _e12 = bit;
    let _e13 = atomicOr((&masks.occupied), _e12);
    let _e15 = bit;
    let _e17 = atomicAnd((&masks.cleared), ~(_e15));
    let _e19 = bit;
    let _e21 = atomicXor((&masks.parity), (_e19 | 1u));
    before = _e21;
    let _e22 = before;
    let _e23 = bit;
    if ((_e22 & _e23) != 0u) {
        let _e27 = atomicOr((&masks.occupied), 2147483648u);
    }
    return;
}

@compute @workgroup_size(32, 1, 1) 
fn main(@builtin(local_invocation_id) gl_LocalInvocationID: vec3<u32>) {
    gl_LocalInvocationID_1 = gl_LocalInvocationID;
    main_1();
}
