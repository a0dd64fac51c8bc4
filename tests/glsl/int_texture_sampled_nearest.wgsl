struct Out {
    o: array<vec4<u32>>,
}

@id(1000) override labels_sampler_address_mode: u32 = 0u;
@id(1001) override heights_sampler_address_mode: u32 = 0u;
@id(2000) override override_type: i32 = 1i;

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var labels: texture_2d<u32>;
@group(0) @binding(1) 
var heights: texture_2d_array<i32>;
@group(0) @binding(2) 
var<storage, read_write> unnamed: Out;
@group(0) @binding(3) 
var labels_sampler: sampler;
@group(0) @binding(4) 
var heights_sampler: sampler;

fn main_1() {
    var p: vec2<i32>;
    var uv: vec2<f32>;
    var l: u32;
    var l2_: u32;
    var h: vec4<i32>;

    let _e34 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e34.xy);
    let _e37 = p;
    uv = ((vec2<f32>(_e37) - vec2(3.3f)) / vec2(5f));
    let _e43 = uv;
    let _e44 = textureNumLevels(labels);
    let _e52 = i32(clamp((ceil((0f + 0.5f)) - 1f), 0f, f32((i32(_e44) - 1i))));
    let _e53 = textureDimensions(labels, _e52);
    let _e54 = vec2<i32>(_e53);
    let _e60 = i32(floor((_e43.x * f32(_e54.x))));
    let _e61 = (_e54.x - 1i);
    let _e62 = clamp(_e60, 0i, _e61);
    let _e63 = (_e60 % _e54.x);
    let _e67 = (_e54.x + _e54.x);
    let _e68 = (_e60 % _e67);
    let _e72 = (select(_e68, (_e68 + _e67), (_e68 < 0i)) - _e54.x);
    let _e90 = i32(floor((_e43.y * f32(_e54.y))));
    let _e91 = (_e54.y - 1i);
    let _e92 = clamp(_e90, 0i, _e91);
    let _e93 = (_e90 % _e54.y);
    let _e97 = (_e54.y + _e54.y);
    let _e98 = (_e90 % _e97);
    let _e102 = (select(_e98, (_e98 + _e97), (_e98 < 0i)) - _e54.y);
    let _e117 = textureLoad(labels, vec2<i32>(select(select(_e62, (_e61 - select((-1i - _e72), _e72, (_e72 >= 0i))), (labels_sampler_address_mode == 2u)), select(_e63, (_e63 + _e54.x), (_e63 < 0i)), (labels_sampler_address_mode == 1u)), select(select(_e92, (_e91 - select((-1i - _e102), _e102, (_e102 >= 0i))), (labels_sampler_address_mode == 2u)), select(_e93, (_e93 + _e54.y), (_e93 < 0i)), (labels_sampler_address_mode == 1u))), _e52);
    let _e120 = textureGather(0, labels, labels_sampler, _e43);
    l = select(select(_e117, vec4<u32>(), vec4((((labels_sampler_address_mode == 3u) && !((_e60 == _e62))) || ((labels_sampler_address_mode == 3u) && !((_e90 == _e92)))))), _e120, vec4((labels_sampler_address_mode == 4u))).x;
    let _e125 = uv;
    let _e126 = (_e125 * 0.5f);
    let _e127 = textureNumLevels(labels);
    let _e135 = i32(clamp((ceil((0.4f + 0.5f)) - 1f), 0f, f32((i32(_e127) - 1i))));
    let _e136 = textureDimensions(labels, _e135);
    let _e137 = vec2<i32>(_e136);
    let _e143 = i32(floor((_e126.x * f32(_e137.x))));
    let _e144 = (_e137.x - 1i);
    let _e145 = clamp(_e143, 0i, _e144);
    let _e146 = (_e143 % _e137.x);
    let _e150 = (_e137.x + _e137.x);
    let _e151 = (_e143 % _e150);
    let _e155 = (select(_e151, (_e151 + _e150), (_e151 < 0i)) - _e137.x);
    let _e173 = i32(floor((_e126.y * f32(_e137.y))));
    let _e174 = (_e137.y - 1i);
    let _e175 = clamp(_e173, 0i, _e174);
    let _e176 = (_e173 % _e137.y);
    let _e180 = (_e137.y + _e137.y);
    let _e181 = (_e173 % _e180);
    let _e185 = (select(_e181, (_e181 + _e180), (_e181 < 0i)) - _e137.y);
    let _e200 = textureLoad(labels, vec2<i32>(select(select(_e145, (_e144 - select((-1i - _e155), _e155, (_e155 >= 0i))), (labels_sampler_address_mode == 2u)), select(_e146, (_e146 + _e137.x), (_e146 < 0i)), (labels_sampler_address_mode == 1u)), select(select(_e175, (_e174 - select((-1i - _e185), _e185, (_e185 >= 0i))), (labels_sampler_address_mode == 2u)), select(_e176, (_e176 + _e137.y), (_e176 < 0i)), (labels_sampler_address_mode == 1u))), _e135);
    let _e203 = textureGather(0, labels, labels_sampler, _e126);
    l2_ = select(select(_e200, vec4<u32>(), vec4((((labels_sampler_address_mode == 3u) && !((_e143 == _e145))) || ((labels_sampler_address_mode == 3u) && !((_e173 == _e175)))))), _e203, vec4((labels_sampler_address_mode == 4u))).x;
    let _e208 = uv;
    let _e210 = p[0u];
    let _e215 = vec3<f32>(_e208.x, _e208.y, (f32(_e210) * 0.3f));
    let _e216 = textureNumLevels(heights);
    let _e224 = i32(clamp((ceil((0f + 0.5f)) - 1f), 0f, f32((i32(_e216) - 1i))));
    let _e225 = textureDimensions(heights, _e224);
    let _e226 = vec2<i32>(_e225);
    let _e229 = vec3<i32>(_e226.x, _e226.y, override_type);
    let _e237 = (i32(floor((_e215.x * f32(_e229.x)))) + vec2<i32>(1i, -1i).x);
    let _e238 = (_e229.x - 1i);
    let _e239 = clamp(_e237, 0i, _e238);
    let _e240 = (_e237 % _e229.x);
    let _e244 = (_e229.x + _e229.x);
    let _e245 = (_e237 % _e244);
    let _e249 = (select(_e245, (_e245 + _e244), (_e245 < 0i)) - _e229.x);
    let _e269 = (i32(floor((_e215.y * f32(_e229.y)))) + vec2<i32>(1i, -1i).y);
    let _e270 = (_e229.y - 1i);
    let _e271 = clamp(_e269, 0i, _e270);
    let _e272 = (_e269 % _e229.y);
    let _e276 = (_e229.y + _e229.y);
    let _e277 = (_e269 % _e276);
    let _e281 = (select(_e277, (_e277 + _e276), (_e277 < 0i)) - _e229.y);
    let _e301 = vec3<i32>(select(select(_e239, (_e238 - select((-1i - _e249), _e249, (_e249 >= 0i))), (heights_sampler_address_mode == 2u)), select(_e240, (_e240 + _e229.x), (_e240 < 0i)), (heights_sampler_address_mode == 1u)), select(select(_e271, (_e270 - select((-1i - _e281), _e281, (_e281 >= 0i))), (heights_sampler_address_mode == 2u)), select(_e272, (_e272 + _e229.y), (_e272 < 0i)), (heights_sampler_address_mode == 1u)), clamp(i32(round(_e215.z)), 0i, (_e229.z - 1i)));
    let _e307 = textureLoad(heights, vec2<i32>(_e301.x, _e301.y), i32(_e301.z), _e224);
    let _e315 = textureGather(0, heights, heights_sampler, vec2<f32>(_e215.x, _e215.y), i32(_e215.z));
    h = select(select(_e307, vec4<i32>(), vec4((((heights_sampler_address_mode == 3u) && !((_e237 == _e239))) || ((heights_sampler_address_mode == 3u) && !((_e269 == _e271)))))), _e315, vec4((heights_sampler_address_mode == 4u)));
    let _e320 = p[1u];
    let _e323 = p[0u];
    let _e325 = l;
    let _e326 = l2_;
    let _e328 = h[0u];
    let _e331 = h[1u];
    unnamed.o[((_e320 * 16i) + _e323)] = vec4<u32>(_e325, _e326, bitcast<u32>(_e328), bitcast<u32>((_e331 + 7i)));
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
