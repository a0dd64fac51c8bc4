struct In {
    data: array<u32, 64>,
}

struct Acc {
    fsum: array<atomic<i32>, 4>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Acc;
@group(0) @binding(0) 
var<storage> unnamed_1: In;

fn main_1() {
    var local: i32;
    var local_1: i32;
    var d: u32;
    var i2_: u32;
    var phi_59_: bool;

    let _e16 = gl_GlobalInvocationID_1[0u];
    d = _e16;
    let _e17 = d;
    i2_ = (_e17 * 3u);
    let _e19 = d;
    let _e24 = d;
    let _e27 = atomicLoad((&unnamed.fsum[((_e19 & 7u) % 4u)]));
    local_1 = _e27;
    loop {
        let _e28 = local_1;
        let _e32 = atomicCompareExchangeWeak((&unnamed.fsum[((_e19 & 7u) % 4u)]), _e28, bitcast<i32>((bitcast<f32>(_e28) + f32((_e24 & 7u)))));
        local_1 = _e32.old_value;
        if _e32.exchanged {
            break;
        } else {
            continue;
        }
    }
    let _e35 = i2_;
    let _e39 = unnamed_1.data[(_e35 & 63u)];
    let _e40 = (_e39 > 954u);
    phi_59_ = _e40;
    if !(_e40) {
        let _e42 = i2_;
        phi_59_ = ((_e42 & 3u) == 1u);
    }
    let _e46 = phi_59_;
    let _e47 = d;
    let _e52 = d;
    let _e55 = atomicLoad((&unnamed.fsum[(select(_e47, 219u, _e46) % 4u)]));
    local = _e55;
    loop {
        let _e56 = local;
        let _e60 = atomicCompareExchangeWeak((&unnamed.fsum[(select(_e47, 219u, _e46) % 4u)]), _e56, bitcast<i32>((bitcast<f32>(_e56) + f32((_e52 & 7u)))));
        local = _e60.old_value;
        if _e60.exchanged {
            break;
        } else {
            continue;
        }
    }
    return;
}

@compute @workgroup_size(32, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
