struct Returned {
    r: array<u32>,
}

struct gl_AtomicCounterBlock_0_ {
    total: atomic<u32>,
    lowest: atomic<u32>,
    highest: atomic<u32>,
    bits: atomic<u32>,
    token: atomic<u32>,
}

var<private> gl_LocalInvocationIndex_1: u32;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Returned;
@group(0) @binding(0) 
var<storage, read_write> unnamed_1: gl_AtomicCounterBlock_0_;

fn main_1() {
    var i: u32;
    var atomic_compare_old: u32;

    let _e16 = gl_LocalInvocationIndex_1;
    i = _e16;
    let _e17 = i;
    let _e21 = i;
    let _e23 = atomicAdd((&unnamed_1.total), (_e21 + 1u));
    unnamed.r[((8u * _e17) + 0u)] = _e23;
    let _e26 = i;
    let _e30 = atomicSub((&unnamed_1.total), 1u);
    unnamed.r[((8u * _e26) + 1u)] = _e30;
    let _e33 = i;
    let _e37 = i;
    let _e39 = atomicMin((&unnamed_1.lowest), (100u + _e37));
    unnamed.r[((8u * _e33) + 2u)] = _e39;
    let _e42 = i;
    let _e46 = i;
    let _e48 = atomicMax((&unnamed_1.highest), (_e46 * 3u));
    unnamed.r[((8u * _e42) + 3u)] = _e48;
    let _e51 = i;
    let _e55 = i;
    let _e58 = atomicOr((&unnamed_1.bits), (1u << bitcast<u32>(_e55)));
    unnamed.r[((8u * _e51) + 4u)] = _e58;
    let _e61 = i;
    let _e65 = i;
    let _e70 = atomicAnd((&unnamed_1.bits), ~((1u << bitcast<u32>((31u - _e65)))));
    unnamed.r[((8u * _e61) + 5u)] = _e70;
    let _e73 = i;
    let _e77 = atomicXor((&unnamed_1.bits), 1048576u);
    unnamed.r[((8u * _e73) + 6u)] = _e77;
    let _e80 = i;
    let _e84 = i;
    loop {
        let _e94 = atomicCompareExchangeWeak((&unnamed_1.token), 0u, (_e84 + 1u));
        atomic_compare_old = _e94.old_value;
        if (_e94.exchanged || (_e94.old_value != 0u)) {
            break;
        }
    }
    let _e87 = atomic_compare_old;
    unnamed.r[((8u * _e80) + 7u)] = _e87;
    let _e92 = atomicLoad((&unnamed_1.lowest));
    let _e93 = atomicExchange((&unnamed_1.lowest), _e92);
    return;
}

@compute @workgroup_size(16, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}
