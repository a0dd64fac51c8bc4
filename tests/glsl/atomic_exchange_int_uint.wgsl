struct Slots {
    owner: atomic<u32>,
    last_signed: atomic<i32>,
    previous_owner: array<u32, 64>,
    previous_signed: array<i32, 64>,
}

var<private> gl_LocalInvocationIndex_1: u32;
@group(0) @binding(0) 
var<storage, read_write> slots: Slots;

fn main_1() {
    var id: u32;
    var prevOwner: u32;
    var prevSigned: i32;

    let _e6 = gl_LocalInvocationIndex_1;
    id = _e6;
    let _e8 = id;
    let _e10 = atomicExchange((&slots.owner), (_e8 + 1u));
    prevOwner = _e10;
    let _e12 = id;
    let _e15 = atomicExchange((&slots.last_signed), -(bitcast<i32>(_e12)));
    prevSigned = _e15;
    let _e16 = id;
    let _e17 = prevOwner;
    slots.previous_owner[_e16] = _e17;
    let _e20 = id;
    let _e21 = prevSigned;
    slots.previous_signed[_e20] = _e21;
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}
