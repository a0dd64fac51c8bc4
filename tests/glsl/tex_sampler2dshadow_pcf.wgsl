struct Points {
    points: array<vec4<f32>>,
}

struct Lit {
    lit: array<f32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage> unnamed: Points;
@group(0) @binding(2) 
var<storage, read_write> unnamed_1: Lit;
@group(0) @binding(0) 
var shadowMap: texture_depth_2d;
@group(0) @binding(3) 
var shadowMap_sampler: sampler_comparison;

fn main_1() {
    var i: u32;
    var p: vec4<f32>;

    let _e10 = gl_GlobalInvocationID_1[0u];
    i = _e10;
    let _e11 = i;
    let _e14 = unnamed.points[_e11];
    p = _e14;
    let _e15 = i;
    let _e16 = p;
    let _e17 = _e16.xy;
    let _e19 = p[2u];
    let _e22 = vec3<f32>(_e17.x, _e17.y, _e19);
    let _e25 = textureSampleCompareLevel(shadowMap, shadowMap_sampler, _e22.xy, _e22.z);
    unnamed_1.lit[_e15] = _e25;
    return;
}

@compute @workgroup_size(16, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
