struct positions_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<f32>,
}

struct velocities_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<f32>,
}

struct advanced_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<f32>,
}

struct Stats {
    particles: i32,
    cells: i32,
    grid: vec2<i32>,
    moved: atomic<u32>,
    first_in_cell: atomic<u32>,
}

struct row_last_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<atomic<u32>>,
}

struct cell_counts_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<atomic<u32>>,
}

@id(1000) override positions_width: u32 = 1u;
@id(1001) override positions_height: u32 = 1u;
@id(1002) override positions_layers: u32 = 1u;
@id(1003) override positions_samples: u32 = 1u;
@id(1004) override velocities_width: u32 = 1u;
@id(1005) override velocities_height: u32 = 1u;
@id(1006) override velocities_layers: u32 = 1u;
@id(1007) override velocities_samples: u32 = 1u;
@id(1008) override advanced_width: u32 = 1u;
@id(1009) override advanced_height: u32 = 1u;
@id(1010) override advanced_layers: u32 = 1u;
@id(1011) override advanced_samples: u32 = 1u;
@id(1012) override row_last_width: u32 = 1u;
@id(1013) override row_last_height: u32 = 1u;
@id(1014) override row_last_layers: u32 = 1u;
@id(1015) override row_last_samples: u32 = 1u;
@id(1016) override cell_counts_width: u32 = 1u;
@id(1017) override cell_counts_height: u32 = 1u;
@id(1018) override cell_counts_layers: u32 = 1u;
@id(1019) override cell_counts_samples: u32 = 1u;

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> stats: Stats;
@group(0) @binding(5) 
var<storage, read_write> positions: positions_texels;
@group(0) @binding(4) 
var<storage, read_write> velocities: velocities_texels;
@group(0) @binding(1) 
var<storage, read_write> advanced: advanced_texels;
@group(0) @binding(3) 
var<storage, read_write> row_last: row_last_texels;
@group(0) @binding(2) 
var<storage, read_write> cell_counts: cell_counts_texels;

fn main_1() {
    var i: i32;
    var n: i32;
    var p: vec4<f32>;
    var v: vec4<f32>;
    var q: vec3<f32>;
    var grid: vec2<i32>;
    var cell: vec2<i32>;
    var cells: i32;
    var before: u32;

    let _e52 = gl_GlobalInvocationID_1[0u];
    i = bitcast<i32>(_e52);
    n = bitcast<i32>(positions_width);
    let _e55 = i;
    let _e56 = n;
    if (_e55 >= _e56) {
        return;
    }
    let _e58 = i;
    let _e59 = bitcast<u32>(_e58);
    let _e66 = ((((_e59 < positions_width) && (0u < positions_height)) && (0u < positions_layers)) && (0u < positions_samples));
    let _e76 = select((((positions_samples * positions_layers) * positions_height) * positions_width), ((((((0u * positions_layers) + 0u) * positions_height) + 0u) * positions_width) + _e59), _e66);
    let _e80 = positions.texels[(_e76 * 4u)];
    let _e85 = positions.texels[((_e76 * 4u) + 1u)];
    let _e90 = positions.texels[((_e76 * 4u) + 2u)];
    let _e95 = positions.texels[((_e76 * 4u) + 3u)];
    let _e101 = i;
    let _e102 = (_e101 % 7i);
    let _e110 = i;
    let _e112 = ((_e110 / 7i) % 5i);
    p = (vec4<f32>(select(f32(), _e80, _e66), select(f32(), _e85, _e66), select(f32(), _e90, _e66), select(f32(), _e95, _e66)) + vec4<f32>(f32(select(_e102, select(_e102, (_e102 + 7i), ((_e102 ^ 7i) < i32())), (_e102 != i32()))), f32(select(_e112, select(_e112, (_e112 + 5i), ((_e112 ^ 5i) < i32())), (_e112 != i32()))), 0f, 0f));
    let _e122 = i;
    let _e123 = bitcast<u32>(_e122);
    let _e130 = ((((_e123 < velocities_width) && (0u < velocities_height)) && (0u < velocities_layers)) && (0u < velocities_samples));
    let _e140 = select((((velocities_samples * velocities_layers) * velocities_height) * velocities_width), ((((((0u * velocities_layers) + 0u) * velocities_height) + 0u) * velocities_width) + _e123), _e130);
    let _e144 = velocities.texels[(_e140 * 4u)];
    let _e149 = velocities.texels[((_e140 * 4u) + 1u)];
    let _e154 = velocities.texels[((_e140 * 4u) + 2u)];
    let _e159 = velocities.texels[((_e140 * 4u) + 3u)];
    v = vec4<f32>(select(f32(), _e144, _e130), select(f32(), _e149, _e130), select(f32(), _e154, _e130), select(f32(), _e159, _e130));
    let _e165 = v;
    let _e169 = p[3u];
    let _e171 = ((_e165.xyz * 0.5f) + (vec3<f32>(0.25f, -0.125f, 0f) * _e169));
    v[0u] = _e171.x;
    v[1u] = _e171.y;
    v[2u] = _e171.z;
    let _e178 = i;
    let _e179 = v;
    let _e180 = bitcast<u32>(_e178);
    let _e197 = select((((velocities_samples * velocities_layers) * velocities_height) * velocities_width), ((((((0u * velocities_layers) + 0u) * velocities_height) + 0u) * velocities_width) + _e180), ((((_e180 < velocities_width) && (0u < velocities_height)) && (0u < velocities_layers)) && (0u < velocities_samples)));
    velocities.texels[(_e197 * 4u)] = _e179.x;
    velocities.texels[((_e197 * 4u) + 1u)] = _e179.y;
    velocities.texels[((_e197 * 4u) + 2u)] = _e179.z;
    velocities.texels[((_e197 * 4u) + 3u)] = _e179.w;
    let _e217 = p;
    let _e219 = v;
    q = (_e217.xyz + _e219.xyz);
    let _e222 = i;
    let _e223 = q;
    let _e225 = p[3u];
    let _e229 = vec4<f32>(_e223.x, _e223.y, _e223.z, _e225);
    let _e230 = bitcast<u32>(_e222);
    let _e247 = select((((advanced_samples * advanced_layers) * advanced_height) * advanced_width), ((((((0u * advanced_layers) + 0u) * advanced_height) + 0u) * advanced_width) + _e230), ((((_e230 < advanced_width) && (0u < advanced_height)) && (0u < advanced_layers)) && (0u < advanced_samples)));
    advanced.texels[(_e247 * 4u)] = _e229.x;
    advanced.texels[((_e247 * 4u) + 1u)] = _e229.y;
    advanced.texels[((_e247 * 4u) + 2u)] = _e229.z;
    advanced.texels[((_e247 * 4u) + 3u)] = _e229.w;
    grid = vec2<i32>(bitcast<i32>(row_last_width), bitcast<i32>(row_last_layers));
    let _e270 = q;
    let _e273 = grid;
    let _e274 = (vec2<i32>(_e270.xy) % _e273);
    cell = select(_e274, select(_e274, (_e274 + _e273), ((_e274 ^ _e273) < vec2<i32>())), (_e274 != vec2<i32>()));
    cells = bitcast<i32>(cell_counts_width);
    let _e283 = cell[1u];
    let _e285 = grid[0u];
    let _e288 = cell[0u];
    let _e290 = cells;
    let _e291 = (((_e283 * _e285) + _e288) % _e290);
    let _e298 = bitcast<u32>(select(_e291, select(_e291, (_e291 + _e290), ((_e291 ^ _e290) < i32())), (_e291 != i32())));
    let _e305 = ((((_e298 < cell_counts_width) && (0u < cell_counts_height)) && (0u < cell_counts_layers)) && (0u < cell_counts_samples));
    let _e318 = atomicAdd((&cell_counts.texels[select((((cell_counts_samples * cell_counts_layers) * cell_counts_height) * cell_counts_width), ((((((0u * cell_counts_layers) + 0u) * cell_counts_height) + 0u) * cell_counts_width) + _e298), _e305)]), 1u);
    before = select(u32(), _e318, _e305);
    let _e320 = cell;
    let _e321 = i;
    let _e324 = bitcast<u32>(_e320.x);
    let _e326 = bitcast<u32>(_e320.y);
    let _e346 = atomicMax((&row_last.texels[select((((row_last_samples * row_last_layers) * row_last_height) * row_last_width), ((((((0u * row_last_layers) + _e326) * row_last_height) + 0u) * row_last_width) + _e324), ((((_e324 < row_last_width) && (0u < row_last_height)) && (_e326 < row_last_layers)) && (0u < row_last_samples)))]), bitcast<u32>(_e321));
    let _e347 = i;
    if (_e347 == 0i) {
        let _e349 = n;
        stats.particles = _e349;
        let _e351 = cells;
        stats.cells = _e351;
        let _e353 = grid;
        stats.grid = _e353;
    }
    let _e356 = q;
    let _e357 = p;
    let _e362 = atomicAdd((&stats.moved), select(0u, 1u, any((_e356 != _e357.xyz))));
    let _e364 = before;
    let _e367 = atomicAdd((&stats.first_in_cell), select(0u, 1u, (_e364 == 1u)));
    return;
}

@compute @workgroup_size(32, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
