struct Values {
    values: array<f32>,
}

struct Result {
    max_bits: atomic<u32>,
    retries: atomic<u32>,
}

@group(0) @binding(0) 
var<storage> unnamed: Values;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> result: Result;

fn main_1() {
    var v: f32;
    var expected: u32;
    var seen: u32;
    var atomic_compare_old: u32;

    let _e9 = gl_GlobalInvocationID_1[0u];
    let _e12 = unnamed.values[_e9];
    v = _e12;
    let _e14 = atomicLoad((&result.max_bits));
    expected = _e14;
    loop {
        let _e15 = v;
        let _e16 = expected;
        if (_e15 > bitcast<f32>(_e16)) {
            let _e20 = expected;
            let _e21 = v;
            loop {
                let _e31 = atomicCompareExchangeWeak((&result.max_bits), _e20, bitcast<u32>(_e21));
                atomic_compare_old = _e31.old_value;
                if (_e31.exchanged || (_e31.old_value != _e20)) {
                    break;
                }
            }
            let _e24 = atomic_compare_old;
            seen = _e24;
            let _e25 = seen;
            let _e26 = expected;
            if (_e25 == _e26) {
                break;
            }
            let _e28 = seen;
            expected = _e28;
            let _e30 = atomicAdd((&result.retries), 1u);
            continue;
        } else {
            break;
        }
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
