var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var albedo: texture_2d<f32>;
@group(0) @binding(1) 
var linearClamp: sampler;
@group(0) @binding(2) 
var halfRes: texture_storage_2d<rgba8unorm,write>;

fn main_1() {
    var p: vec2<i32>;
    var uv: vec2<f32>;

    let _e10 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e10.xy);
    let _e13 = p;
    let _e18 = textureDimensions(albedo, 0i);
    uv = (((vec2<f32>(_e13) * 2f) + vec2(1f)) / vec2<f32>(vec2<i32>(_e18)));
    let _e22 = p;
    let _e23 = uv;
    let _e24 = textureSampleLevel(albedo, linearClamp, _e23, 0f);
    textureStore(halfRes, _e22, _e24);
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
