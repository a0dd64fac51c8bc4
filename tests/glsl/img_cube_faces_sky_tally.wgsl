struct sky_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<u32>,
}

struct Sizes {
    sky_size: vec2<i32>,
    tally_size: vec4<i32>,
    texels: atomic<u32>,
    highest: atomic<u32>,
}

struct tally_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<atomic<u32>>,
}

@id(1000) override sky_width: u32 = 1u;
@id(1001) override sky_height: u32 = 1u;
@id(1002) override sky_layers: u32 = 1u;
@id(1003) override sky_samples: u32 = 1u;
@id(1004) override tally_width: u32 = 1u;
@id(1005) override tally_height: u32 = 1u;
@id(1006) override tally_layers: u32 = 1u;
@id(1007) override tally_samples: u32 = 1u;

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(2) 
var<storage, read_write> sizes: Sizes;
@group(0) @binding(0) 
var<storage, read_write> sky: sky_texels;
@group(0) @binding(1) 
var<storage, read_write> tally: tally_texels;

fn face_dir(face: ptr<function, u32>, st: ptr<function, vec2<f32>>) -> vec3<f32> {
    let _e6 = (*face);
    switch bitcast<i32>(_e6) {
        case 0: {
            let _e16 = (*st)[1u];
            let _e19 = (*st)[0u];
            return vec3<f32>(1f, -(_e16), -(_e19));
        }
        case 1: {
            let _e23 = (*st)[1u];
            let _e26 = (*st)[0u];
            return vec3<f32>(-1f, -(_e23), _e26);
        }
        case 2: {
            let _e29 = (*st)[0u];
            let _e31 = (*st)[1u];
            return vec3<f32>(_e29, 1f, _e31);
        }
        case 3: {
            let _e34 = (*st)[0u];
            let _e36 = (*st)[1u];
            return vec3<f32>(_e34, -1f, -(_e36));
        }
        case 4: {
            let _e40 = (*st)[0u];
            let _e42 = (*st)[1u];
            return vec3<f32>(_e40, -(_e42), 1f);
        }
        default: {
            let _e9 = (*st)[0u];
            let _e12 = (*st)[1u];
            return vec3<f32>(-(_e9), -(_e12), -1f);
        }
    }
}

fn main_1() {
    var size: vec2<i32>;
    var id: vec3<u32>;
    var face_1: u32;
    var st_1: vec2<f32>;
    var dir: vec3<f32>;
    var param: u32;
    var param_1: vec2<f32>;
    var horizon: vec3<f32>;
    var t: vec3<i32>;
    var cube: i32;

    size = vec2<i32>(bitcast<i32>(sky_width), bitcast<i32>(sky_height));
    let _e44 = gl_GlobalInvocationID_1;
    id = _e44;
    let _e46 = id[2u];
    face_1 = _e46;
    let _e47 = id;
    let _e50 = size;
    if any((bitcast<vec2<i32>>(_e47.xy) >= _e50)) {
        return;
    }
    let _e53 = id;
    let _e58 = size;
    st_1 = ((((vec2<f32>(_e53.xy) + vec2(0.5f)) / vec2<f32>(_e58)) * 2f) - vec2(1f));
    let _e64 = face_1;
    param = _e64;
    let _e65 = st_1;
    param_1 = _e65;
    let _e66 = face_dir((&param), (&param_1));
    dir = _e66;
    let _e67 = dir;
    horizon = (vec3<f32>(0.75f, 0.5f, 0.25f) + (_e67 * 0.25f));
    let _e70 = id;
    let _e72 = bitcast<vec2<i32>>(_e70.xy);
    let _e73 = face_1;
    let _e77 = vec3<i32>(_e72.x, _e72.y, bitcast<i32>(_e73));
    let _e78 = horizon;
    let _e79 = face_1;
    let _e85 = vec4<f32>(_e78.x, _e78.y, _e78.z, (f32(_e79) * 0.125f));
    let _e87 = bitcast<u32>(_e77.x);
    let _e89 = bitcast<u32>(_e77.y);
    let _e91 = bitcast<u32>(_e77.z);
    let _e108 = select((((sky_samples * sky_layers) * sky_height) * sky_width), ((((((0u * sky_layers) + _e91) * sky_height) + _e89) * sky_width) + _e87), ((((_e87 < sky_width) && (_e89 < sky_height)) && (_e91 < sky_layers)) && (0u < sky_samples)));
    sky.texels[(_e108 * 2u)] = pack2x16float(vec2<f32>(_e85.x, _e85.y));
    sky.texels[((_e108 * 2u) + 1u)] = pack2x16float(vec2<f32>(_e85.z, _e85.w));
    t = vec3<i32>(bitcast<i32>(tally_width), bitcast<i32>(tally_height), bitcast<i32>((tally_layers / 6u)));
    let _e130 = id[0u];
    let _e132 = id[1u];
    let _e136 = t[2u];
    let _e137 = (bitcast<i32>((_e130 + _e132)) % _e136);
    cube = select(_e137, select(_e137, (_e137 + _e136), ((_e137 ^ _e136) < i32())), (_e137 != i32()));
    let _e144 = id;
    let _e147 = t;
    let _e148 = _e147.xy;
    let _e149 = (bitcast<vec2<i32>>(_e144.xy) % _e148);
    let _e155 = select(_e149, select(_e149, (_e149 + _e148), ((_e149 ^ _e148) < vec2<i32>())), (_e149 != vec2<i32>()));
    let _e156 = cube;
    let _e158 = face_1;
    let _e163 = vec3<i32>(_e155.x, _e155.y, ((6i * _e156) + bitcast<i32>(_e158)));
    let _e165 = bitcast<u32>(_e163.x);
    let _e167 = bitcast<u32>(_e163.y);
    let _e169 = bitcast<u32>(_e163.z);
    let _e189 = atomicAdd((&tally.texels[select((((tally_samples * tally_layers) * tally_height) * tally_width), ((((((0u * tally_layers) + _e169) * tally_height) + _e167) * tally_width) + _e165), ((((_e165 < tally_width) && (_e167 < tally_height)) && (_e169 < tally_layers)) && (0u < tally_samples)))]), 1u);
    let _e191 = t[2u];
    let _e194 = face_1;
    let _e197 = vec3<i32>(0i, 0i, ((6i * (_e191 - 1i)) + bitcast<i32>(_e194)));
    let _e199 = id[0u];
    let _e202 = id[1u];
    let _e205 = bitcast<u32>(_e197.x);
    let _e207 = bitcast<u32>(_e197.y);
    let _e209 = bitcast<u32>(_e197.z);
    let _e229 = atomicMax((&tally.texels[select((((tally_samples * tally_layers) * tally_height) * tally_width), ((((((0u * tally_layers) + _e209) * tally_height) + _e207) * tally_width) + _e205), ((((_e205 < tally_width) && (_e207 < tally_height)) && (_e209 < tally_layers)) && (0u < tally_samples)))]), ((_e199 * 16u) + _e202));
    let _e230 = id;
    if all((_e230 == vec3<u32>(0u, 0u, 0u))) {
        let _e233 = size;
        sizes.sky_size = _e233;
        let _e235 = t;
        sizes.tally_size = vec4<i32>(_e235.x, _e235.y, _e235.z, 0i);
    }
    let _e242 = atomicAdd((&sizes.texels), 1u);
    let _e245 = id[0u];
    let _e248 = id[1u];
    let _e251 = face_1;
    let _e253 = atomicMax((&sizes.highest), (((_e245 * 100u) + (_e248 * 10u)) + _e251));
    return;
}

@compute @workgroup_size(4, 4, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
