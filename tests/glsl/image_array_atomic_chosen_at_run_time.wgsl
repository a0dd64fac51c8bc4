struct Picks {
    picks: array<u32>,
}

struct counters_u005b_0_u005d_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<atomic<u32>>,
}

struct counters_u005b_1_u005d_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<atomic<u32>>,
}

struct counters_u005b_2_u005d_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<atomic<u32>>,
}

struct counters_u005b_3_u005d_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<atomic<u32>>,
}

@id(1000) override counters_u005b_0_u005d_width: u32 = 1u;
@id(1001) override counters_u005b_0_u005d_height: u32 = 1u;
@id(1002) override counters_u005b_0_u005d_layers: u32 = 1u;
@id(1003) override counters_u005b_0_u005d_samples: u32 = 1u;
@id(1004) override counters_u005b_1_u005d_width: u32 = 1u;
@id(1005) override counters_u005b_1_u005d_height: u32 = 1u;
@id(1006) override counters_u005b_1_u005d_layers: u32 = 1u;
@id(1007) override counters_u005b_1_u005d_samples: u32 = 1u;
@id(1008) override counters_u005b_2_u005d_width: u32 = 1u;
@id(1009) override counters_u005b_2_u005d_height: u32 = 1u;
@id(1010) override counters_u005b_2_u005d_layers: u32 = 1u;
@id(1011) override counters_u005b_2_u005d_samples: u32 = 1u;
@id(1012) override counters_u005b_3_u005d_width: u32 = 1u;
@id(1013) override counters_u005b_3_u005d_height: u32 = 1u;
@id(1014) override counters_u005b_3_u005d_layers: u32 = 1u;
@id(1015) override counters_u005b_3_u005d_samples: u32 = 1u;

@group(0) @binding(1) 
var<storage> unnamed: Picks;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> counters_u005b_0_u005d: counters_u005b_0_u005d_texels;
@group(0) @binding(2) 
var<storage, read_write> counters_u005b_1_u005d: counters_u005b_1_u005d_texels;
@group(0) @binding(3) 
var<storage, read_write> counters_u005b_2_u005d: counters_u005b_2_u005d_texels;
@group(0) @binding(4) 
var<storage, read_write> counters_u005b_3_u005d: counters_u005b_3_u005d_texels;

fn main_1() {
    var p: u32;
    var phi_50_: u32;

    let _e30 = gl_GlobalInvocationID_1[0u];
    let _e33 = unnamed.picks[_e30];
    p = (_e33 * 5u);
    let _e35 = p;
    let _e37 = p;
    let _e41 = p;
    let _e45 = vec2<i32>(bitcast<i32>(((_e37 / 4u) % 4u)), bitcast<i32>(((_e41 / 16u) % 4u)));
    switch bitcast<i32>((_e35 % 4u)) {
        case 0: {
            let _e48 = bitcast<u32>(_e45.x);
            let _e50 = bitcast<u32>(_e45.y);
            let _e57 = ((((_e48 < counters_u005b_0_u005d_width) && (_e50 < counters_u005b_0_u005d_height)) && (0u < counters_u005b_0_u005d_layers)) && (0u < counters_u005b_0_u005d_samples));
            let _e70 = atomicAdd((&counters_u005b_0_u005d.texels[select((((counters_u005b_0_u005d_samples * counters_u005b_0_u005d_layers) * counters_u005b_0_u005d_height) * counters_u005b_0_u005d_width), ((((((0u * counters_u005b_0_u005d_layers) + 0u) * counters_u005b_0_u005d_height) + _e50) * counters_u005b_0_u005d_width) + _e48), _e57)]), 1u);
            phi_50_ = select(u32(), _e70, _e57);
            break;
        }
        case 1: {
            let _e73 = bitcast<u32>(_e45.x);
            let _e75 = bitcast<u32>(_e45.y);
            let _e82 = ((((_e73 < counters_u005b_1_u005d_width) && (_e75 < counters_u005b_1_u005d_height)) && (0u < counters_u005b_1_u005d_layers)) && (0u < counters_u005b_1_u005d_samples));
            let _e95 = atomicAdd((&counters_u005b_1_u005d.texels[select((((counters_u005b_1_u005d_samples * counters_u005b_1_u005d_layers) * counters_u005b_1_u005d_height) * counters_u005b_1_u005d_width), ((((((0u * counters_u005b_1_u005d_layers) + 0u) * counters_u005b_1_u005d_height) + _e75) * counters_u005b_1_u005d_width) + _e73), _e82)]), 1u);
            phi_50_ = select(u32(), _e95, _e82);
            break;
        }
        case 2: {
            let _e98 = bitcast<u32>(_e45.x);
            let _e100 = bitcast<u32>(_e45.y);
            let _e107 = ((((_e98 < counters_u005b_2_u005d_width) && (_e100 < counters_u005b_2_u005d_height)) && (0u < counters_u005b_2_u005d_layers)) && (0u < counters_u005b_2_u005d_samples));
            let _e120 = atomicAdd((&counters_u005b_2_u005d.texels[select((((counters_u005b_2_u005d_samples * counters_u005b_2_u005d_layers) * counters_u005b_2_u005d_height) * counters_u005b_2_u005d_width), ((((((0u * counters_u005b_2_u005d_layers) + 0u) * counters_u005b_2_u005d_height) + _e100) * counters_u005b_2_u005d_width) + _e98), _e107)]), 1u);
            phi_50_ = select(u32(), _e120, _e107);
            break;
        }
        default: {
            let _e123 = bitcast<u32>(_e45.x);
            let _e125 = bitcast<u32>(_e45.y);
            let _e132 = ((((_e123 < counters_u005b_3_u005d_width) && (_e125 < counters_u005b_3_u005d_height)) && (0u < counters_u005b_3_u005d_layers)) && (0u < counters_u005b_3_u005d_samples));
            let _e145 = atomicAdd((&counters_u005b_3_u005d.texels[select((((counters_u005b_3_u005d_samples * counters_u005b_3_u005d_layers) * counters_u005b_3_u005d_height) * counters_u005b_3_u005d_width), ((((((0u * counters_u005b_3_u005d_layers) + 0u) * counters_u005b_3_u005d_height) + _e125) * counters_u005b_3_u005d_width) + _e123), _e132)]), 1u);
            phi_50_ = select(u32(), _e145, _e132);
            break;
        }
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
