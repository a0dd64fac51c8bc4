struct State {
    counter: atomic<u32>,
    generation: u32,
    slots: array<atomic<u32>, 64>,
    balance: array<atomic<i32>>,
}

var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> s_slots: array<atomic<u32>, 64>;
var<workgroup> s_total: atomic<u32>;
@group(0) @binding(0) 
var<storage, read_write> st: State;

fn main_1() {
    var lid: u32;
    var before: u32;
    var mine: u32;
    var c: u32;

    let _e16 = gl_LocalInvocationIndex_1;
    lid = _e16;
    let _e17 = lid;
    let _e18 = lid;
    atomicStore((&s_slots[_e17]), _e18);
    let _e20 = lid;
    if (_e20 == 0u) {
        atomicStore((&s_total), 0u);
        let _e23 = st.generation;
        st.generation = (_e23 + 1u);
    }
    workgroupBarrier();
    let _e26 = lid;
    let _e28 = atomicLoad((&s_slots[_e26]));
    let _e29 = atomicAdd((&s_total), _e28);
    workgroupBarrier();
    let _e30 = lid;
    let _e34 = atomicXor((&s_slots[((_e30 + 1u) % 64u)]), 5u);
    let _e36 = atomicAdd((&st.counter), 1u);
    before = _e36;
    let _e37 = lid;
    let _e40 = before;
    let _e45 = atomicAdd((&st.balance[_e37]), ((bitcast<i32>((_e40 & 1u)) * 2i) - 1i));
    workgroupBarrier();
    let _e46 = lid;
    let _e48 = atomicLoad((&s_slots[_e46]));
    mine = _e48;
    let _e49 = lid;
    let _e50 = mine;
    let _e51 = atomicLoad((&s_total));
    atomicStore((&st.slots[_e49]), (_e50 + _e51));
    let _e55 = lid;
    if (_e55 == 0u) {
        let _e58 = atomicLoad((&st.counter));
        c = _e58;
        let _e59 = c;
        atomicStore((&st.balance[64i]), bitcast<i32>(_e59));
        let _e65 = c;
        let _e66 = atomicMax((&st.slots[0i]), _e65);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}
