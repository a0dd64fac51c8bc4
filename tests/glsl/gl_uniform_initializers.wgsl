struct gl_DefaultUniformBlock {
    u_iterations: u32,
    u_scale: f32,
    u_bias: vec3<f32>,
    u_step: vec2<i32>,
    u_enabled: u32,
    u_required: f32,
}

struct Result {
    result: array<f32>,
}

@group(0) @binding(1) 
var<uniform> unnamed: gl_DefaultUniformBlock;
@group(0) @binding(0) 
var<storage, read_write> unnamed_1: Result;

fn main_1() {
    var x: f32;
    var k: u32;
    var local: f32;

    let _e12 = unnamed.u_required;
    x = _e12;
    k = 0u;
    loop {
        let _e13 = k;
        let _e15 = unnamed.u_iterations;
        if (_e13 < _e15) {
            let _e17 = x;
            let _e19 = unnamed.u_scale;
            let _e23 = unnamed.u_bias[0u];
            let _e27 = unnamed.u_bias[1u];
            let _e31 = unnamed.u_bias[2u];
            x = ((((_e17 * _e19) + _e23) + _e27) + _e31);
            continue;
        } else {
            break;
        }
        continuing {
            let _e33 = k;
            k = (_e33 + bitcast<u32>(1i));
        }
    }
    let _e37 = unnamed.u_enabled;
    if (_e37 != 0u) {
        let _e39 = x;
        let _e42 = unnamed.u_step[0u];
        let _e45 = unnamed.u_step[1u];
        local = (_e39 + f32((_e42 * _e45)));
    } else {
        local = 0f;
    }
    let _e49 = local;
    unnamed_1.result[0i] = _e49;
    return;
}

@compute @workgroup_size(1, 1, 1) 
fn main() {
    main_1();
}
