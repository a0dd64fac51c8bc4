struct gl_DefaultUniformBlock {
    frame: u32,
    spread: f32,
}

struct Stats {
    hits: atomic<u32>,
    peak: atomic<u32>,
    bins: array<atomic<u32>, 8>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(2) 
var<uniform> unnamed: gl_DefaultUniformBlock;
@group(0) @binding(0) 
var framebuffer: texture_storage_2d<r32float,read_write>;
@group(0) @binding(1) 
var<storage, read_write> unnamed_1: Stats;

fn bucket(v: ptr<function, f32>) -> u32 {
    let _e3 = (*v);
    return min(u32((_e3 * 8f)), 7u);
}

fn scramble(v_1: ptr<function, vec3<u32>>) -> vec3<u32> {
    let _e7 = (*v_1);
    (*v_1) = ((_e7 * vec3(1664525u)) + vec3(1013904223u));
    let _e13 = (*v_1)[1u];
    let _e15 = (*v_1)[2u];
    let _e18 = (*v_1)[0u];
    (*v_1)[0u] = (_e18 + (_e13 * _e15));
    let _e22 = (*v_1)[2u];
    let _e24 = (*v_1)[0u];
    let _e27 = (*v_1)[1u];
    (*v_1)[1u] = (_e27 + (_e22 * _e24));
    let _e31 = (*v_1)[0u];
    let _e33 = (*v_1)[1u];
    let _e36 = (*v_1)[2u];
    (*v_1)[2u] = (_e36 + (_e31 * _e33));
    let _e39 = (*v_1);
    let _e43 = (*v_1);
    (*v_1) = (_e43 ^ (_e39 >> bitcast<vec3<u32>>(vec3(16u))));
    let _e46 = (*v_1)[1u];
    let _e48 = (*v_1)[2u];
    let _e51 = (*v_1)[0u];
    (*v_1)[0u] = (_e51 + (_e46 * _e48));
    let _e55 = (*v_1)[2u];
    let _e57 = (*v_1)[0u];
    let _e60 = (*v_1)[1u];
    (*v_1)[1u] = (_e60 + (_e55 * _e57));
    let _e64 = (*v_1)[0u];
    let _e66 = (*v_1)[1u];
    let _e69 = (*v_1)[2u];
    (*v_1)[2u] = (_e69 + (_e64 * _e66));
    let _e72 = (*v_1);
    return _e72;
}

fn jitter(pixel: ptr<function, vec2<u32>>, frame: ptr<function, u32>) -> vec2<f32> {
    var h: vec3<u32>;
    var param: vec3<u32>;

    let _e10 = (*pixel);
    let _e11 = (*frame);
    param = vec3<u32>(_e10.x, _e10.y, _e11);
    let _e15 = scramble((&param));
    h = _e15;
    let _e18 = h[0u];
    let _e21 = atomicMax((&unnamed_1.peak), (_e18 >> bitcast<u32>(8i)));
    let _e22 = h;
    let _e30 = unnamed.spread;
    return ((vec2<f32>((_e22.xy >> bitcast<vec2<u32>>(vec2(9i)))) * 0.00000011920929f) * _e30);
}

fn main_1() {
    var pixel_1: vec2<u32>;
    var j: vec2<f32>;
    var param_1: vec2<u32>;
    var param_2: u32;
    var v_2: f32;
    var before: f32;
    var param_3: f32;

    let _e13 = gl_GlobalInvocationID_1;
    pixel_1 = _e13.xy;
    let _e15 = pixel_1;
    param_1 = _e15;
    let _e17 = unnamed.frame;
    param_2 = _e17;
    let _e18 = jitter((&param_1), (&param_2));
    j = _e18;
    let _e20 = j[0u];
    let _e22 = j[1u];
    v_2 = (_e20 + _e22);
    let _e24 = pixel_1;
    let _e26 = textureLoad(framebuffer, bitcast<vec2<i32>>(_e24));
    before = _e26.x;
    let _e28 = pixel_1;
    let _e30 = before;
    let _e31 = v_2;
    textureStore(framebuffer, bitcast<vec2<i32>>(_e28), vec4((_e30 + _e31)));
    let _e35 = atomicAdd((&unnamed_1.hits), 1u);
    let _e36 = v_2;
    param_3 = _e36;
    let _e37 = bucket((&param_3));
    let _e40 = atomicAdd((&unnamed_1.bins[_e37]), 1u);
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
