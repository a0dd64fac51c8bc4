struct Bins {
    bins: array<atomic<u32>, 64>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var photo: texture_2d<f32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Bins;

fn main_1() {
    var p: vec2<i32>;
    var c: vec3<f32>;
    var y: f32;

    let _e11 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e11.xy);
    let _e14 = p;
    let _e15 = textureDimensions(photo, 0i);
    if any((_e14 >= vec2<i32>(_e15))) {
        return;
    }
    let _e19 = p;
    let _e20 = textureLoad(photo, _e19, 0i);
    c = _e20.xyz;
    let _e22 = c;
    y = dot(_e22, vec3<f32>(0.2126f, 0.7152f, 0.0722f));
    let _e24 = y;
    let _e30 = atomicAdd((&unnamed.bins[min(u32((_e24 * 64f)), 63u)]), 1u);
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
