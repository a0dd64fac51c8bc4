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

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(2) 
var<uniform> unnamed: gl_DefaultUniformBlock;
@group(0) @binding(1) 
var<uniform> material: Material;
@group(0) @binding(0) 
var<storage, read_write> unnamed_1: Samples;

fn main_1() {
    var i: u32;
    var acc: f32;
    var k: i32;

    let _e14 = gl_GlobalInvocationID_1[0u];
    i = _e14;
    let _e15 = i;
    let _e17 = unnamed.u_count;
    if (_e15 >= _e17) {
        return;
    }
    acc = 0f;
    k = 0i;
    loop {
        let _e19 = k;
        if (_e19 < 4i) {
            let _e21 = k;
            let _e25 = material.weights[_e21].value;
            let _e26 = i;
            let _e27 = k;
            let _e31 = unnamed.u_count;
            let _e35 = unnamed_1.samples[((_e26 + bitcast<u32>(_e27)) % _e31)];
            let _e37 = acc;
            acc = (_e37 + (_e25 * _e35));
            continue;
        } else {
            break;
        }
        continuing {
            let _e39 = k;
            k = (_e39 + 1i);
        }
    }
    let _e41 = i;
    let _e42 = acc;
    let _e44 = unnamed.u_gain;
    let _e48 = material.tint[0u];
    let _e54 = material.offsets[1i].value[1u];
    unnamed_1.samples[_e41] = (((_e42 * _e44) * _e48) + f32(_e54));
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
