struct Out {
    winner: array<u32, 32>,
    losses: atomic<u32>,
}

var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> s_owner: array<atomic<u32>, 32>;
var<workgroup> s_bits: array<atomic<u32>, 4>;
@group(0) @binding(0) 
var<storage, read_write> o: Out;

fn main_1() {
    var lid: u32;
    var slot: u32;
    var prev: u32;
    var atomic_compare_old: u32;

    let _e12 = gl_LocalInvocationIndex_1;
    lid = _e12;
    let _e13 = lid;
    atomicStore((&s_owner[_e13]), 4294967295u);
    let _e15 = lid;
    if (_e15 < 4u) {
        let _e17 = lid;
        atomicStore((&s_bits[_e17]), 4294967295u);
    }
    workgroupBarrier();
    let _e19 = lid;
    slot = ((_e19 * 7u) % 32u);
    let _e22 = slot;
    let _e24 = lid;
    loop {
        let _e55 = atomicCompareExchangeWeak((&s_owner[_e22]), 4294967295u, _e24);
        atomic_compare_old = _e55.old_value;
        if (_e55.exchanged || (_e55.old_value != 4294967295u)) {
            break;
        }
    }
    let _e26 = atomic_compare_old;
    prev = _e26;
    let _e27 = prev;
    if (_e27 != 4294967295u) {
        let _e30 = atomicAdd((&o.losses), 1u);
    }
    let _e31 = lid;
    let _e34 = lid;
    let _e38 = atomicAnd((&s_bits[(_e31 % 4u)]), ~((1u << bitcast<u32>(_e34))));
    let _e39 = lid;
    let _e43 = atomicXor((&s_bits[((_e39 + 1u) % 4u)]), 1u);
    workgroupBarrier();
    let _e44 = lid;
    let _e45 = lid;
    let _e47 = atomicLoad((&s_owner[_e45]));
    let _e48 = lid;
    let _e51 = atomicLoad((&s_bits[(_e48 % 4u)]));
    o.winner[_e44] = (_e47 ^ _e51);
    return;
}

@compute @workgroup_size(32, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}
