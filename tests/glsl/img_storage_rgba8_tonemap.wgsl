var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var hdr: texture_storage_2d<rgba16float,read>;
@group(0) @binding(1) 
var ldr: texture_storage_2d<rgba8unorm,write>;

fn main_1() {
    var p: vec2<i32>;
    var c: vec3<f32>;

    let _e6 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e6.xy);
    let _e9 = p;
    let _e10 = textureDimensions(hdr);
    if any((_e9 >= vec2<i32>(_e10))) {
        return;
    }
    let _e14 = p;
    let _e15 = textureLoad(hdr, _e14);
    c = _e15.xyz;
    let _e17 = p;
    let _e18 = c;
    let _e19 = c;
    let _e22 = (_e18 / (vec3(1f) + _e19));
    textureStore(ldr, _e17, vec4<f32>(_e22.x, _e22.y, _e22.z, 1f));
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
