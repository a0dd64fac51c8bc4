struct Input {
    values: array<f32>,
}

struct Accum {
    sum: atomic<i32>,
    sum_sq: atomic<i32>,
}

@group(0) @binding(0) 
var<storage> inp: Input;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> acc: Accum;

fn main_1() {
    var local: i32;
    var local_1: i32;
    var v: f32;

    let _e8 = gl_GlobalInvocationID_1[0u];
    let _e11 = inp.values[_e8];
    v = _e11;
    let _e13 = v;
    let _e14 = atomicLoad((&acc.sum));
    local_1 = _e14;
    loop {
        let _e15 = local_1;
        let _e19 = atomicCompareExchangeWeak((&acc.sum), _e15, bitcast<i32>((bitcast<f32>(_e15) + _e13)));
        local_1 = _e19.old_value;
        if _e19.exchanged {
            break;
        } else {
            continue;
        }
    }
    let _e23 = v;
    let _e24 = v;
    let _e26 = atomicLoad((&acc.sum_sq));
    local = _e26;
    loop {
        let _e27 = local;
        let _e31 = atomicCompareExchangeWeak((&acc.sum_sq), _e27, bitcast<i32>((bitcast<f32>(_e27) + (_e23 * _e24))));
        local = _e31.old_value;
        if _e31.exchanged {
            break;
        } else {
            continue;
        }
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
