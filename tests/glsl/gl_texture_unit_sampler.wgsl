struct gl_DefaultUniformBlock {
    u_threshold: f32,
}

struct Count {
    above: atomic<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var mask: texture_2d<f32>;
@group(0) @binding(2) 
var<uniform> unnamed: gl_DefaultUniformBlock;
@group(0) @binding(0) 
var<storage, read_write> unnamed_1: Count;

fn main_1() {
    var p: vec2<i32>;

    let _e7 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e7.xy);
    let _e10 = p;
    let _e11 = textureDimensions(mask, 0i);
    if any((_e10 >= vec2<i32>(_e11))) {
        return;
    }
    let _e15 = p;
    let _e16 = textureLoad(mask, _e15, 0i);
    let _e19 = unnamed.u_threshold;
    if (_e16.x > _e19) {
        let _e22 = atomicAdd((&unnamed_1.above), 1u);
    }
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
