struct gl_DefaultUniformBlock {
    u_count: u32,
    u_gain: f32,
}

struct type_5 {
    value: f32,
    _pad0_: u32,
    _pad1_: u32,
    _pad2_: u32,
}

struct type_8 {
    value: vec2<i32>,
    _pad0_: u32,
    _pad1_: u32,
}

struct Material {
    tint: vec4<f32>,
    weights: array<type_5, 4>,
    offsets: array<type_8, 2>,
}

struct Samples {
    samples: array<f32>,
}

struct Filtered {
    filtered: array<f32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(3) 
var<uniform> unnamed: gl_DefaultUniformBlock;
@group(0) @binding(1) 
var<uniform> material: Material;
@group(0) @binding(0) 
var<storage> unnamed_1: Samples;
@group(0) @binding(2) 
var<storage, read_write> unnamed_2: Filtered;

fn main_1() {
    var i: u32;
    var acc: f32;
    var k: i32;

    let _e15 = gl_GlobalInvocationID_1[0u];
    i = _e15;
    let _e16 = i;
    let _e18 = unnamed.u_count;
    if (_e16 >= _e18) {
        return;
    }
    acc = 0f;
    k = 0i;
    loop {
        let _e20 = k;
        if (_e20 < 4i) {
            let _e22 = k;
            let _e26 = material.weights[_e22].value;
            let _e27 = i;
            let _e28 = k;
            let _e32 = unnamed.u_count;
            let _e36 = unnamed_1.samples[((_e27 + bitcast<u32>(_e28)) % _e32)];
            let _e38 = acc;
            acc = (_e38 + (_e26 * _e36));
            continue;
        } else {
            break;
        }
        continuing {
            let _e40 = k;
            k = (_e40 + 1i);
        }
    }
    let _e42 = i;
    let _e43 = acc;
    let _e45 = unnamed.u_gain;
    let _e49 = material.tint[0u];
    let _e55 = material.offsets[1i].value[1u];
    unnamed_2.filtered[_e42] = (((_e43 * _e45) * _e49) + f32(_e55));
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
