var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var field: texture_storage_2d<r32float,read_write>;

fn main_1() {
    var p: vec2<i32>;

    let _e6 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e6.xy);
    let _e9 = p;
    let _e10 = p;
    let _e11 = textureLoad(field, _e10);
    let _e14 = p[0u];
    let _e16 = p[1u];
    textureStore(field, _e9, ((_e11 * 0.5f) + vec4(f32((_e14 + _e16)))));
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
