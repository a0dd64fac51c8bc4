struct objectMatrices_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<f32>,
}

struct parentMatrices_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<f32>,
}

struct parents_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<i32>,
}

struct worldRows_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<f32>,
}

struct visits_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<atomic<u32>>,
}

@id(1000) override objectMatrices_width: u32 = 1u;
@id(1001) override objectMatrices_height: u32 = 1u;
@id(1002) override objectMatrices_layers: u32 = 1u;
@id(1003) override objectMatrices_samples: u32 = 1u;
@id(1004) override parentMatrices_width: u32 = 1u;
@id(1005) override parentMatrices_height: u32 = 1u;
@id(1006) override parentMatrices_layers: u32 = 1u;
@id(1007) override parentMatrices_samples: u32 = 1u;
@id(1008) override parents_width: u32 = 1u;
@id(1009) override parents_height: u32 = 1u;
@id(1010) override parents_layers: u32 = 1u;
@id(1011) override parents_samples: u32 = 1u;
@id(1012) override worldRows_width: u32 = 1u;
@id(1013) override worldRows_height: u32 = 1u;
@id(1014) override worldRows_layers: u32 = 1u;
@id(1015) override worldRows_samples: u32 = 1u;
@id(1016) override visits_width: u32 = 1u;
@id(1017) override visits_height: u32 = 1u;
@id(1018) override visits_layers: u32 = 1u;
@id(1019) override visits_samples: u32 = 1u;

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(3) 
var<storage, read_write> objectMatrices: objectMatrices_texels;
@group(0) @binding(4) 
var<storage, read_write> parentMatrices: parentMatrices_texels;
@group(0) @binding(2) 
var<storage, read_write> parents: parents_texels;
@group(0) @binding(0) 
var<storage, read_write> worldRows: worldRows_texels;
@group(0) @binding(1) 
var<storage, read_write> visits: visits_texels;

fn storeRows_worldRows(param: ptr<function, i32>, param_1: ptr<function, mat4x4<f32>>) {
    var local: i32;

    local = 0i;
    loop {
        let _e16 = local;
        if (_e16 < 4i) {
            let _e18 = (*param);
            let _e20 = local;
            let _e22 = local;
            let _e24 = (*param_1)[_e22];
            let _e25 = bitcast<u32>(((_e18 * 4i) + _e20));
            let _e42 = select((((worldRows_samples * worldRows_layers) * worldRows_height) * worldRows_width), ((((((0u * worldRows_layers) + 0u) * worldRows_height) + 0u) * worldRows_width) + _e25), ((((_e25 < worldRows_width) && (0u < worldRows_height)) && (0u < worldRows_layers)) && (0u < worldRows_samples)));
            worldRows.texels[(_e42 * 4u)] = _e24.x;
            worldRows.texels[((_e42 * 4u) + 1u)] = _e24.y;
            worldRows.texels[((_e42 * 4u) + 2u)] = _e24.z;
            worldRows.texels[((_e42 * 4u) + 3u)] = _e24.w;
            continue;
        } else {
            break;
        }
        continuing {
            let _e62 = local;
            local = (_e62 + 1i);
        }
    }
    return;
}

fn matrixAt_parentMatrices(param_2: ptr<function, i32>) -> mat4x4<f32> {
    let _e17 = (*param_2);
    let _e20 = bitcast<u32>(((_e17 * 4i) + 0i));
    let _e27 = ((((_e20 < parentMatrices_width) && (0u < parentMatrices_height)) && (0u < parentMatrices_layers)) && (0u < parentMatrices_samples));
    let _e37 = select((((parentMatrices_samples * parentMatrices_layers) * parentMatrices_height) * parentMatrices_width), ((((((0u * parentMatrices_layers) + 0u) * parentMatrices_height) + 0u) * parentMatrices_width) + _e20), _e27);
    let _e41 = parentMatrices.texels[(_e37 * 4u)];
    let _e46 = parentMatrices.texels[((_e37 * 4u) + 1u)];
    let _e51 = parentMatrices.texels[((_e37 * 4u) + 2u)];
    let _e56 = parentMatrices.texels[((_e37 * 4u) + 3u)];
    let _e61 = vec4<f32>(select(f32(), _e41, _e27), select(f32(), _e46, _e27), select(f32(), _e51, _e27), select(f32(), _e56, _e27));
    let _e62 = (*param_2);
    let _e65 = bitcast<u32>(((_e62 * 4i) + 1i));
    let _e72 = ((((_e65 < parentMatrices_width) && (0u < parentMatrices_height)) && (0u < parentMatrices_layers)) && (0u < parentMatrices_samples));
    let _e82 = select((((parentMatrices_samples * parentMatrices_layers) * parentMatrices_height) * parentMatrices_width), ((((((0u * parentMatrices_layers) + 0u) * parentMatrices_height) + 0u) * parentMatrices_width) + _e65), _e72);
    let _e86 = parentMatrices.texels[(_e82 * 4u)];
    let _e91 = parentMatrices.texels[((_e82 * 4u) + 1u)];
    let _e96 = parentMatrices.texels[((_e82 * 4u) + 2u)];
    let _e101 = parentMatrices.texels[((_e82 * 4u) + 3u)];
    let _e106 = vec4<f32>(select(f32(), _e86, _e72), select(f32(), _e91, _e72), select(f32(), _e96, _e72), select(f32(), _e101, _e72));
    let _e107 = (*param_2);
    let _e110 = bitcast<u32>(((_e107 * 4i) + 2i));
    let _e117 = ((((_e110 < parentMatrices_width) && (0u < parentMatrices_height)) && (0u < parentMatrices_layers)) && (0u < parentMatrices_samples));
    let _e127 = select((((parentMatrices_samples * parentMatrices_layers) * parentMatrices_height) * parentMatrices_width), ((((((0u * parentMatrices_layers) + 0u) * parentMatrices_height) + 0u) * parentMatrices_width) + _e110), _e117);
    let _e131 = parentMatrices.texels[(_e127 * 4u)];
    let _e136 = parentMatrices.texels[((_e127 * 4u) + 1u)];
    let _e141 = parentMatrices.texels[((_e127 * 4u) + 2u)];
    let _e146 = parentMatrices.texels[((_e127 * 4u) + 3u)];
    let _e151 = vec4<f32>(select(f32(), _e131, _e117), select(f32(), _e136, _e117), select(f32(), _e141, _e117), select(f32(), _e146, _e117));
    let _e152 = (*param_2);
    let _e155 = bitcast<u32>(((_e152 * 4i) + 3i));
    let _e162 = ((((_e155 < parentMatrices_width) && (0u < parentMatrices_height)) && (0u < parentMatrices_layers)) && (0u < parentMatrices_samples));
    let _e172 = select((((parentMatrices_samples * parentMatrices_layers) * parentMatrices_height) * parentMatrices_width), ((((((0u * parentMatrices_layers) + 0u) * parentMatrices_height) + 0u) * parentMatrices_width) + _e155), _e162);
    let _e176 = parentMatrices.texels[(_e172 * 4u)];
    let _e181 = parentMatrices.texels[((_e172 * 4u) + 1u)];
    let _e186 = parentMatrices.texels[((_e172 * 4u) + 2u)];
    let _e191 = parentMatrices.texels[((_e172 * 4u) + 3u)];
    let _e196 = vec4<f32>(select(f32(), _e176, _e162), select(f32(), _e181, _e162), select(f32(), _e186, _e162), select(f32(), _e191, _e162));
    return mat4x4<f32>(vec4<f32>(_e61.x, _e61.y, _e61.z, _e61.w), vec4<f32>(_e106.x, _e106.y, _e106.z, _e106.w), vec4<f32>(_e151.x, _e151.y, _e151.z, _e151.w), vec4<f32>(_e196.x, _e196.y, _e196.z, _e196.w));
}

fn parentOf_parentMatrices_parents(param_3: ptr<function, i32>) -> mat4x4<f32> {
    var local_1: i32;
    var local_2: i32;

    let _e17 = (*param_3);
    let _e18 = bitcast<u32>(_e17);
    let _e25 = ((((_e18 < parents_width) && (0u < parents_height)) && (0u < parents_layers)) && (0u < parents_samples));
    let _e35 = select((((parents_samples * parents_layers) * parents_height) * parents_width), ((((((0u * parents_layers) + 0u) * parents_height) + 0u) * parents_width) + _e18), _e25);
    let _e39 = parents.texels[(_e35 * 4u)];
    let _e44 = parents.texels[((_e35 * 4u) + 1u)];
    let _e49 = parents.texels[((_e35 * 4u) + 2u)];
    let _e54 = parents.texels[((_e35 * 4u) + 3u)];
    let _e62 = (bitcast<i32>(parentMatrices_width) / 4i);
    let _e63 = (vec4<i32>(select(i32(), _e39, _e25), select(i32(), _e44, _e25), select(i32(), _e49, _e25), select(i32(), _e54, _e25)).x % _e62);
    local_1 = select(_e63, select(_e63, (_e63 + _e62), ((_e63 ^ _e62) < i32())), (_e63 != i32()));
    let _e70 = local_1;
    local_2 = _e70;
    let _e71 = matrixAt_parentMatrices((&local_2));
    return _e71;
}

fn matrixAt_objectMatrices(param_4: ptr<function, i32>) -> mat4x4<f32> {
    let _e17 = (*param_4);
    let _e20 = bitcast<u32>(((_e17 * 4i) + 0i));
    let _e27 = ((((_e20 < objectMatrices_width) && (0u < objectMatrices_height)) && (0u < objectMatrices_layers)) && (0u < objectMatrices_samples));
    let _e37 = select((((objectMatrices_samples * objectMatrices_layers) * objectMatrices_height) * objectMatrices_width), ((((((0u * objectMatrices_layers) + 0u) * objectMatrices_height) + 0u) * objectMatrices_width) + _e20), _e27);
    let _e41 = objectMatrices.texels[(_e37 * 4u)];
    let _e46 = objectMatrices.texels[((_e37 * 4u) + 1u)];
    let _e51 = objectMatrices.texels[((_e37 * 4u) + 2u)];
    let _e56 = objectMatrices.texels[((_e37 * 4u) + 3u)];
    let _e61 = vec4<f32>(select(f32(), _e41, _e27), select(f32(), _e46, _e27), select(f32(), _e51, _e27), select(f32(), _e56, _e27));
    let _e62 = (*param_4);
    let _e65 = bitcast<u32>(((_e62 * 4i) + 1i));
    let _e72 = ((((_e65 < objectMatrices_width) && (0u < objectMatrices_height)) && (0u < objectMatrices_layers)) && (0u < objectMatrices_samples));
    let _e82 = select((((objectMatrices_samples * objectMatrices_layers) * objectMatrices_height) * objectMatrices_width), ((((((0u * objectMatrices_layers) + 0u) * objectMatrices_height) + 0u) * objectMatrices_width) + _e65), _e72);
    let _e86 = objectMatrices.texels[(_e82 * 4u)];
    let _e91 = objectMatrices.texels[((_e82 * 4u) + 1u)];
    let _e96 = objectMatrices.texels[((_e82 * 4u) + 2u)];
    let _e101 = objectMatrices.texels[((_e82 * 4u) + 3u)];
    let _e106 = vec4<f32>(select(f32(), _e86, _e72), select(f32(), _e91, _e72), select(f32(), _e96, _e72), select(f32(), _e101, _e72));
    let _e107 = (*param_4);
    let _e110 = bitcast<u32>(((_e107 * 4i) + 2i));
    let _e117 = ((((_e110 < objectMatrices_width) && (0u < objectMatrices_height)) && (0u < objectMatrices_layers)) && (0u < objectMatrices_samples));
    let _e127 = select((((objectMatrices_samples * objectMatrices_layers) * objectMatrices_height) * objectMatrices_width), ((((((0u * objectMatrices_layers) + 0u) * objectMatrices_height) + 0u) * objectMatrices_width) + _e110), _e117);
    let _e131 = objectMatrices.texels[(_e127 * 4u)];
    let _e136 = objectMatrices.texels[((_e127 * 4u) + 1u)];
    let _e141 = objectMatrices.texels[((_e127 * 4u) + 2u)];
    let _e146 = objectMatrices.texels[((_e127 * 4u) + 3u)];
    let _e151 = vec4<f32>(select(f32(), _e131, _e117), select(f32(), _e136, _e117), select(f32(), _e141, _e117), select(f32(), _e146, _e117));
    let _e152 = (*param_4);
    let _e155 = bitcast<u32>(((_e152 * 4i) + 3i));
    let _e162 = ((((_e155 < objectMatrices_width) && (0u < objectMatrices_height)) && (0u < objectMatrices_layers)) && (0u < objectMatrices_samples));
    let _e172 = select((((objectMatrices_samples * objectMatrices_layers) * objectMatrices_height) * objectMatrices_width), ((((((0u * objectMatrices_layers) + 0u) * objectMatrices_height) + 0u) * objectMatrices_width) + _e155), _e162);
    let _e176 = objectMatrices.texels[(_e172 * 4u)];
    let _e181 = objectMatrices.texels[((_e172 * 4u) + 1u)];
    let _e186 = objectMatrices.texels[((_e172 * 4u) + 2u)];
    let _e191 = objectMatrices.texels[((_e172 * 4u) + 3u)];
    let _e196 = vec4<f32>(select(f32(), _e176, _e162), select(f32(), _e181, _e162), select(f32(), _e186, _e162), select(f32(), _e191, _e162));
    return mat4x4<f32>(vec4<f32>(_e61.x, _e61.y, _e61.z, _e61.w), vec4<f32>(_e106.x, _e106.y, _e106.z, _e106.w), vec4<f32>(_e151.x, _e151.y, _e151.z, _e151.w), vec4<f32>(_e196.x, _e196.y, _e196.z, _e196.w));
}

fn main_1() {
    var i: i32;
    var local_3: mat4x4<f32>;
    var param_5: i32;
    var world: mat4x4<f32>;
    var param_6: i32;
    var param_7: i32;
    var param_8: mat4x4<f32>;

    let _e30 = gl_GlobalInvocationID_1[0u];
    i = bitcast<i32>(_e30);
    let _e32 = i;
    if (_e32 >= (bitcast<i32>(objectMatrices_width) / 4i)) {
        return;
    }
    let _e36 = i;
    param_5 = _e36;
    let _e37 = matrixAt_objectMatrices((&param_5));
    local_3 = _e37;
    let _e38 = i;
    let _e40 = i;
    let _e41 = (_e40 % 3i);
    let _e51 = local_3[3];
    let _e53 = (_e51.xyz + vec3<f32>(f32(_e38), f32(select(_e41, select(_e41, (_e41 + 3i), ((_e41 ^ 3i) < i32())), (_e41 != i32()))), 0.5f));
    local_3[3][0u] = _e53.x;
    local_3[3][1u] = _e53.y;
    local_3[3][2u] = _e53.z;
    let _e63 = i;
    param_6 = _e63;
    let _e64 = parentOf_parentMatrices_parents((&param_6));
    let _e65 = local_3;
    world = (_e64 * _e65);
    let _e67 = i;
    param_7 = _e67;
    let _e68 = world;
    param_8 = _e68;
    storeRows_worldRows((&param_7), (&param_8));
    let _e69 = i;
    let _e70 = bitcast<u32>(_e69);
    let _e77 = ((((_e70 < parents_width) && (0u < parents_height)) && (0u < parents_layers)) && (0u < parents_samples));
    let _e87 = select((((parents_samples * parents_layers) * parents_height) * parents_width), ((((((0u * parents_layers) + 0u) * parents_height) + 0u) * parents_width) + _e70), _e77);
    let _e91 = parents.texels[(_e87 * 4u)];
    let _e96 = parents.texels[((_e87 * 4u) + 1u)];
    let _e101 = parents.texels[((_e87 * 4u) + 2u)];
    let _e106 = parents.texels[((_e87 * 4u) + 3u)];
    let _e113 = bitcast<i32>(visits_width);
    let _e114 = (vec4<i32>(select(i32(), _e91, _e77), select(i32(), _e96, _e77), select(i32(), _e101, _e77), select(i32(), _e106, _e77)).x % _e113);
    let _e121 = bitcast<u32>(select(_e114, select(_e114, (_e114 + _e113), ((_e114 ^ _e113) < i32())), (_e114 != i32())));
    let _e141 = atomicAdd((&visits.texels[select((((visits_samples * visits_layers) * visits_height) * visits_width), ((((((0u * visits_layers) + 0u) * visits_height) + 0u) * visits_width) + _e121), ((((_e121 < visits_width) && (0u < visits_height)) && (0u < visits_layers)) && (0u < visits_samples)))]), 1u);
    return;
}

@compute @workgroup_size(16, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
