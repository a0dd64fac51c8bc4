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
    let _e55 = (labels_sampler_address_mode == 1u);
    let _e56 = (labels_sampler_address_mode == 2u);
    let _e57 = (labels_sampler_address_mode == 3u);
    let _e63 = i32(floor((_e43.x * f32(_e54.x))));
    let _e64 = (_e54.x - 1i);
    let _e65 = clamp(_e63, 0i, _e64);
    let _e66 = (_e63 % _e54.x);
    let _e70 = (_e54.x + _e54.x);
    let _e71 = (_e63 % _e70);
    let _e75 = (select(_e71, (_e71 + _e70), (_e71 < 0i)) - _e54.x);
    let _e90 = i32(floor((_e43.y * f32(_e54.y))));
    let _e91 = (_e54.y - 1i);
    let _e92 = clamp(_e90, 0i, _e91);
    let _e93 = (_e90 % _e54.y);
    let _e97 = (_e54.y + _e54.y);
    let _e98 = (_e90 % _e97);
    let _e102 = (select(_e98, (_e98 + _e97), (_e98 < 0i)) - _e54.y);
    let _e114 = textureLoad(labels, vec2<i32>(select(select(_e65, (_e64 - select((-1i - _e75), _e75, (_e75 >= 0i))), _e56), select(_e66, (_e66 + _e54.x), (_e66 < 0i)), _e55), select(select(_e92, (_e91 - select((-1i - _e102), _e102, (_e102 >= 0i))), _e56), select(_e93, (_e93 + _e54.y), (_e93 < 0i)), _e55)), _e52);
    let _e117 = textureGather(0, labels, labels_sampler, _e43);
    l = select(select(_e114, vec4<u32>(), vec4(((_e57 && !((_e63 == _e65))) || (_e57 && !((_e90 == _e92)))))), _e117, vec4((labels_sampler_address_mode == 4u))).x;
    let _e122 = uv;
    let _e123 = (_e122 * 0.5f);
    let _e124 = textureNumLevels(labels);
    let _e132 = i32(clamp((ceil((0.4f + 0.5f)) - 1f), 0f, f32((i32(_e124) - 1i))));
    let _e133 = textureDimensions(labels, _e132);
    let _e134 = vec2<i32>(_e133);
    let _e135 = (labels_sampler_address_mode == 1u);
    let _e136 = (labels_sampler_address_mode == 2u);
    let _e137 = (labels_sampler_address_mode == 3u);
    let _e143 = i32(floor((_e123.x * f32(_e134.x))));
    let _e144 = (_e134.x - 1i);
    let _e145 = clamp(_e143, 0i, _e144);
    let _e146 = (_e143 % _e134.x);
    let _e150 = (_e134.x + _e134.x);
    let _e151 = (_e143 % _e150);
    let _e155 = (select(_e151, (_e151 + _e150), (_e151 < 0i)) - _e134.x);
    let _e170 = i32(floor((_e123.y * f32(_e134.y))));
    let _e171 = (_e134.y - 1i);
    let _e172 = clamp(_e170, 0i, _e171);
    let _e173 = (_e170 % _e134.y);
    let _e177 = (_e134.y + _e134.y);
    let _e178 = (_e170 % _e177);
    let _e182 = (select(_e178, (_e178 + _e177), (_e178 < 0i)) - _e134.y);
    let _e194 = textureLoad(labels, vec2<i32>(select(select(_e145, (_e144 - select((-1i - _e155), _e155, (_e155 >= 0i))), _e136), select(_e146, (_e146 + _e134.x), (_e146 < 0i)), _e135), select(select(_e172, (_e171 - select((-1i - _e182), _e182, (_e182 >= 0i))), _e136), select(_e173, (_e173 + _e134.y), (_e173 < 0i)), _e135)), _e132);
    let _e197 = textureGather(0, labels, labels_sampler, _e123);
    l2_ = select(select(_e194, vec4<u32>(), vec4(((_e137 && !((_e143 == _e145))) || (_e137 && !((_e170 == _e172)))))), _e197, vec4((labels_sampler_address_mode == 4u))).x;
    let _e202 = uv;
    let _e204 = p[0u];
    let _e209 = vec3<f32>(_e202.x, _e202.y, (f32(_e204) * 0.3f));
    let _e210 = textureNumLevels(heights);
    let _e218 = i32(clamp((ceil((0f + 0.5f)) - 1f), 0f, f32((i32(_e210) - 1i))));
    let _e219 = textureDimensions(heights, _e218);
    let _e220 = vec2<i32>(_e219);
    let _e223 = vec3<i32>(_e220.x, _e220.y, override_type);
    let _e224 = (heights_sampler_address_mode == 1u);
    let _e225 = (heights_sampler_address_mode == 2u);
    let _e226 = (heights_sampler_address_mode == 3u);
    let _e234 = (i32(floor((_e209.x * f32(_e223.x)))) + vec2<i32>(1i, -1i).x);
    let _e235 = (_e223.x - 1i);
    let _e236 = clamp(_e234, 0i, _e235);
    let _e237 = (_e234 % _e223.x);
    let _e241 = (_e223.x + _e223.x);
    let _e242 = (_e234 % _e241);
    let _e246 = (select(_e242, (_e242 + _e241), (_e242 < 0i)) - _e223.x);
    let _e263 = (i32(floor((_e209.y * f32(_e223.y)))) + vec2<i32>(1i, -1i).y);
    let _e264 = (_e223.y - 1i);
    let _e265 = clamp(_e263, 0i, _e264);
    let _e266 = (_e263 % _e223.y);
    let _e270 = (_e223.y + _e223.y);
    let _e271 = (_e263 % _e270);
    let _e275 = (select(_e271, (_e271 + _e270), (_e271 < 0i)) - _e223.y);
    let _e292 = vec3<i32>(select(select(_e236, (_e235 - select((-1i - _e246), _e246, (_e246 >= 0i))), _e225), select(_e237, (_e237 + _e223.x), (_e237 < 0i)), _e224), select(select(_e265, (_e264 - select((-1i - _e275), _e275, (_e275 >= 0i))), _e225), select(_e266, (_e266 + _e223.y), (_e266 < 0i)), _e224), clamp(i32(round(_e209.z)), 0i, (_e223.z - 1i)));
    let _e298 = textureLoad(heights, vec2<i32>(_e292.x, _e292.y), i32(_e292.z), _e218);
    let _e306 = textureGather(0, heights, heights_sampler, vec2<f32>(_e209.x, _e209.y), i32(_e209.z));
    h = select(select(_e298, vec4<i32>(), vec4(((_e226 && !((_e234 == _e236))) || (_e226 && !((_e263 == _e265)))))), _e306, vec4((heights_sampler_address_mode == 4u)));
    let _e311 = p[1u];
    let _e314 = p[0u];
    let _e316 = l;
    let _e317 = l2_;
    let _e319 = h[0u];
    let _e322 = h[1u];
    unnamed.o[((_e311 * 16i) + _e314)] = vec4<u32>(_e316, _e317, bitcast<u32>(_e319), bitcast<u32>((_e322 + 7i)));
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
