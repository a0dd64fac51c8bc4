struct Input {
    values: array<f32>,
}

struct Accum {
    sum: atomic<u32>,
    sum_sq: atomic<u32>,
}

@group(0) @binding(0) 
var<storage> inp: Input;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> acc: Accum;

fn main_1() {
    var v: f32;
    var phi_48_: u32;
    var local: u32;
    var phi_59_: u32;
    var local_1: u32;
    var atomic_compare_old: u32;
    var atomic_compare_old_1: u32;

    let _e6 = gl_GlobalInvocationID_1[0u];
    let _e9 = inp.values[_e6];
    v = _e9;
    let _e11 = v;
    let _e12 = atomicLoad((&acc.sum));
    phi_48_ = _e12;
    loop {
        let _e14 = phi_48_;
        local = _e14;
        loop {
            let _e38 = atomicCompareExchangeWeak((&acc.sum), _e14, bitcast<u32>((bitcast<f32>(_e14) + _e11)));
            atomic_compare_old = _e38.old_value;
            if (_e38.exchanged || (_e38.old_value != _e14)) {
                break;
            }
        }
        let _e19 = atomic_compare_old;
        if (_e19 == _e14) {
            break;
        } else {
            continue;
        }
        continuing {
            phi_48_ = _e19;
        }
    }
    let _e22 = v;
    let _e23 = v;
    let _e25 = atomicLoad((&acc.sum_sq));
    phi_59_ = _e25;
    loop {
        let _e27 = phi_59_;
        local_1 = _e27;
        loop {
            let _e43 = atomicCompareExchangeWeak((&acc.sum_sq), _e27, bitcast<u32>((bitcast<f32>(_e27) + (_e22 * _e23))));
            atomic_compare_old_1 = _e43.old_value;
            if (_e43.exchanged || (_e43.old_value != _e27)) {
                break;
            }
        }
        let _e32 = atomic_compare_old_1;
        if (_e32 == _e27) {
            break;
        } else {
            continue;
        }
        continuing {
            phi_59_ = _e32;
        }
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
