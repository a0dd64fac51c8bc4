struct gl_DefaultUniformBlock {
    u_transform: mat4x4<f32>,
    u_resolution: vec2<u32>,
    u_pointCount: u32,
}

struct Points {
    points: array<vec4<f32>>,
}

struct Framebuffer {
    depthIndex: array<atomic<u32>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(2) 
var<uniform> unnamed: gl_DefaultUniformBlock;
@group(0) @binding(0) 
var<storage> unnamed_1: Points;
@group(0) @binding(1) 
var<storage, read_write> unnamed_2: Framebuffer;

fn main_1() {
    var i: u32;
    var clip: vec4<f32>;
    var ndc: vec3<f32>;
    var pixel: vec2<u32>;
    var depth: u32;

    let _e21 = gl_GlobalInvocationID_1[0u];
    i = _e21;
    let _e22 = i;
    let _e24 = unnamed.u_pointCount;
    if (_e22 >= _e24) {
        return;
    }
    let _e27 = unnamed.u_transform;
    let _e28 = i;
    let _e31 = unnamed_1.points[_e28];
    let _e32 = _e31.xyz;
    clip = (_e27 * vec4<f32>(_e32.x, _e32.y, _e32.z, 1f));
    let _e39 = clip[3u];
    if (_e39 <= 0f) {
        return;
    }
    let _e41 = clip;
    let _e44 = clip[3u];
    ndc = (_e41.xyz / vec3(_e44));
    let _e47 = ndc;
    if any((abs(_e47) > vec3<f32>(1f, 1f, 1f))) {
        return;
    }
    let _e51 = ndc;
    let _e57 = unnamed.u_resolution;
    pixel = vec2<u32>((((_e51.xy * 0.5f) + vec2(0.5f)) * vec2<f32>(_e57)));
    let _e61 = pixel;
    let _e63 = unnamed.u_resolution;
    pixel = min(_e61, (_e63 - vec2(1u)));
    let _e68 = ndc[2u];
    depth = u32((((_e68 * 0.5f) + 0.5f) * 65535f));
    let _e74 = pixel[1u];
    let _e77 = unnamed.u_resolution[0u];
    let _e80 = pixel[0u];
    let _e84 = depth;
    let _e87 = i;
    let _e90 = atomicMin((&unnamed_2.depthIndex[((_e74 * _e77) + _e80)]), ((_e84 << bitcast<u32>(16i)) | (_e87 & 65535u)));
    return;
}

@compute @workgroup_size(256, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
