struct Sum {
    size: vec4<i32>,
    sum: array<vec4<f32>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Sum;
@group(0) @binding(0) 
var frames: texture_2d_array<f32>;

fn main_1() {
    var p: vec2<i32>;
    var acc: vec4<f32>;
    var l: i32;

    let _e12 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e12.xy);
    let _e15 = p;
    let _e17 = unnamed.size;
    if any((_e15 >= _e17.xy)) {
        return;
    }
    acc = vec4<f32>(0f, 0f, 0f, 0f);
    l = 0i;
    loop {
        let _e21 = l;
        let _e24 = unnamed.size[2u];
        if (_e21 < _e24) {
            let _e26 = p;
            let _e27 = l;
            let _e30 = vec3<i32>(_e26.x, _e26.y, _e27);
            let _e36 = textureLoad(frames, vec2<i32>(_e30.x, _e30.y), i32(_e30.z), 0i);
            let _e37 = acc;
            acc = (_e37 + _e36);
            continue;
        } else {
            break;
        }
        continuing {
            let _e39 = l;
            l = (_e39 + 1i);
        }
    }
    let _e42 = p[1u];
    let _e45 = unnamed.size[0u];
    let _e48 = p[0u];
    let _e50 = acc;
    unnamed.sum[((_e42 * _e45) + _e48)] = _e50;
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
