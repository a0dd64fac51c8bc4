struct Sum {
    sum: array<vec4<f32>>,
}

@id(2000) override override_type: i32 = 1i;

@group(0) @binding(0) 
var frames: texture_2d_array<f32>;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Sum;

fn main_1() {
    var size: vec3<i32>;
    var p: vec2<i32>;
    var acc: vec4<f32>;
    var l: i32;

    let _e14 = textureDimensions(frames, 0i);
    let _e15 = vec2<i32>(_e14);
    size = vec3<i32>(_e15.x, _e15.y, override_type);
    let _e19 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e19.xy);
    let _e22 = p;
    let _e23 = size;
    if any((_e22 >= _e23.xy)) {
        return;
    }
    acc = vec4<f32>(0f, 0f, 0f, 0f);
    l = 0i;
    loop {
        let _e27 = l;
        let _e29 = size[2u];
        if (_e27 < _e29) {
            let _e31 = p;
            let _e32 = l;
            let _e35 = vec3<i32>(_e31.x, _e31.y, _e32);
            let _e41 = textureLoad(frames, vec2<i32>(_e35.x, _e35.y), i32(_e35.z), 0i);
            let _e42 = acc;
            acc = (_e42 + _e41);
            continue;
        } else {
            break;
        }
        continuing {
            let _e44 = l;
            l = (_e44 + 1i);
        }
    }
    let _e47 = p[1u];
    let _e49 = size[0u];
    let _e52 = p[0u];
    let _e54 = acc;
    unnamed.sum[((_e47 * _e49) + _e52)] = _e54;
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
