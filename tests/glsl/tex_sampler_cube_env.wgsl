struct Out {
    colour: array<vec4<f32>, 6>,
    info: vec4<i32>,
}

var<private> gl_LocalInvocationIndex_1: u32;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Out;
@group(0) @binding(0) 
var env: texture_cube<f32>;
@group(0) @binding(2) 
var env_sampler: sampler;

fn main_1() {
    var f: u32;
    var indexable: array<vec3<f32>, 6>;

    let _e10 = gl_LocalInvocationIndex_1;
    f = _e10;
    let _e11 = f;
    let _e12 = f;
    indexable = array<vec3<f32>, 6>(vec3<f32>(1f, 0f, 0f), vec3<f32>(-1f, 0f, 0f), vec3<f32>(0f, 1f, 0f), vec3<f32>(0f, -1f, 0f), vec3<f32>(0f, 0f, 1f), vec3<f32>(0f, 0f, -1f));
    let _e14 = indexable[_e12];
    let _e15 = textureSampleLevel(env, env_sampler, _e14, 0f);
    unnamed.colour[_e11] = _e15;
    let _e18 = f;
    if (_e18 == 0u) {
        let _e20 = textureDimensions(env, 0i);
        let _e21 = vec2<i32>(_e20);
        let _e22 = textureNumLevels(env);
        unnamed.info = vec4<i32>(_e21.x, _e21.y, i32(_e22), 0i);
    }
    return;
}

@compute @workgroup_size(6, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}
