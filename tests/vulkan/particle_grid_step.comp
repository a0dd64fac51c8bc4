#version 450
// One step of a particle simulation on a uniform grid, in the style of
// GPU particle and crowd systems that keep positions in fixed point so that
// every run agrees bit for bit: 1/256 of a unit per step. Each workgroup
// loads its particles into shared memory, pushes close pairs apart, applies
// each kind's own force (a switch), moves each particle, respawns the old
// ones, bounces them off the walls, and then bins them: cell counts,
// the lowest particle per cell and an id checksum per cell through
// atomics, the scene's bounds through atomicMin/atomicMax, a speed
// histogram reduced in shared memory first, occupied rows as bit masks,
// and the fastest particle through a compare-and-swap loop. Every result
// is independent of the order the invocations run in.
// run: --groups 9 --buffer Particles=i32:4096:iota --buffer Moved=i32:4096
// run: --buffer Cells=u32:256 --buffer Lowest=u32:256:fill=4294967295 --buffer Checksum=u32:256
// run: --buffer Bounds=i32:[2147483647,2147483647,-2147483648,-2147483648] --buffer Stats=u32:24
// run: --buffer Rows=u32:16 --uniform gridSize=16 --uniform cellShift=10 --uniform radius=1500
// run: --uniform stiffness=3 --uniform gravity=-40 --uniform wall=16383 --uniform damping=230
layout(local_size_x = 64) in;

struct Particle {
    ivec4 position;  // x, y, z in 1/256 units; w: the particle's kind (0..3)
    ivec4 velocity;  // x, y, z per step; w: the particle's age in steps
};

layout(set = 0, binding = 0) uniform Params {
    uint gridSize;   // cells along x and y (z is folded into the cell's hash)
    uint cellShift;  // a cell is 1 << cellShift units wide
    int radius;      // pairs closer than this push apart
    int stiffness;   // a push is (radius - distance) >> stiffness
    int gravity;     // added to velocity.y every step
    int wall;        // walls at 0 and at this on every axis
    int damping;     // velocity *= damping / 256 on a bounce
};

layout(set = 0, binding = 1) readonly buffer Particles { Particle particles[]; };
layout(set = 0, binding = 2) writeonly buffer Moved { Particle moved[]; };
layout(set = 0, binding = 3) buffer Cells { uint cellCount[]; };
layout(set = 0, binding = 4) buffer Lowest { uint lowestInCell[]; };
layout(set = 0, binding = 5) buffer Checksum { uint cellChecksum[]; };
layout(set = 0, binding = 6) buffer Bounds { ivec2 lowXY; ivec2 highXY; };
layout(set = 0, binding = 7) buffer Stats {
    uint speedBins[8];
    uint kindCount[4];
    uint bounces;
    uint pushes;
    uint fastestKey;
    uint outsideGrid;
    uint oldest;
    uint respawned;
    uint reserved[6];
};
layout(set = 1, binding = 0) buffer Rows { uint occupiedRows[16]; };

const uint TILE = 64u;
const uint SPEED_BINS = 8u;

shared ivec4 tilePosition[TILE];
shared uint tileBins[SPEED_BINS];
shared uint tilePushes;
shared int tileLow[2];
shared int tileHigh[2];

// A hash of the particle's index, to spread the iota input over the scene.
uint scramble(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// The particle as the host would have placed it: position inside the walls,
// a small velocity, a kind and an age, all from the raw words it wrote.
Particle spawn(uint id, Particle raw) {
    Particle p;
    uint h = scramble(uint(raw.position.x) + id * 977u);
    uint w = uint(wall);
    p.position = ivec4(int(h % w), int(scramble(h) % w), int(scramble(h + 1u) % w), int(h >> 30));
    p.velocity = ivec4(int(scramble(h + 2u) % 401u) - 200, int(scramble(h + 3u) % 401u) - 200,
                       int(scramble(h + 4u) % 401u) - 200, int(uint(raw.velocity.w) % 97u));
    return p;
}

int lengthSquared(ivec3 d) {
    // Positions are below 65536 and pairs are tested only when each axis is
    // within the radius, so the squares stay far from overflowing.
    return d.x * d.x + d.y * d.y + d.z * d.z;
}

// An integer square root by bisection: floor(sqrt(v)) for v >= 0.
int isqrt(int v) {
    if (v <= 0) {
        return 0;
    }
    int low = 0;
    int high = min(v, 46340) + 1;
    while (high - low > 1) {
        int mid = (low + high) >> 1;
        if (mid * mid <= v) {
            low = mid;
        } else {
            high = mid;
        }
    }
    return low;
}

// The push that `other` gives `self`: along the axis of their difference,
// scaled down by the stiffness; zero when they are apart.
ivec3 pushFrom(ivec3 self, ivec3 other, inout uint count) {
    ivec3 d = self - other;
    if (abs(d.x) >= radius || abs(d.y) >= radius || abs(d.z) >= radius) {
        return ivec3(0);
    }
    int dist = isqrt(lengthSquared(d));
    if (dist == 0 || dist >= radius) {
        return ivec3(0);
    }
    count += 1u;
    int strength = (radius - dist) >> stiffness;
    return (d * strength) / dist;
}

// Reflects a coordinate off the walls at 0 and `wall`, damping its speed.
bool bounce(inout int x, inout int v) {
    if (x < 0) {
        x = -x;
        v = (-v * damping) / 256;
        return true;
    }
    if (x > wall) {
        x = 2 * wall - x;
        v = (-v * damping) / 256;
        return true;
    }
    return false;
}

// What each kind of particle does besides falling: dust drags, smoke
// rises, sparks speed up until they burn out, and stones only fall.
ivec3 kindForce(int kind, ivec3 velocity, int age) {
    ivec3 f = ivec3(0);
    switch (kind) {
    case 0:
        // Dust: drag of an eighth of the speed, rounded toward zero.
        f = -(velocity / 8);
        break;
    case 1:
        // Smoke: rises against gravity, more slowly as it ages.
        f.y = -gravity + max(0, 24 - age / 4);
        f.xz = -(velocity.xz / 16);
        break;
    case 2:
        // Sparks: a push along their own direction while young.
        if (age < 48) {
            f = sign(velocity) * 12;
        } else {
            f = -(velocity / 2);
        }
        break;
    default:
        break;
    }
    return f;
}

// A particle past its lifetime starts again at the top of the scene, in a
// column chosen by its id, at rest.
bool respawn(inout Particle p, uint id) {
    if (p.velocity.w < 90) {
        return false;
    }
    uint h = scramble(id ^ 0x5bd1e995u);
    p.position.xyz = ivec3(int(h % uint(wall)), wall - 1, int(scramble(h) % uint(wall)));
    p.velocity = ivec4(0);
    return true;
}

uint speedBin(ivec3 v) {
    uint s = uint(abs(v.x) + abs(v.y) + abs(v.z));
    return min(s / 96u, SPEED_BINS - 1u);
}

// The fastest particle, the lowest id among equals: speed and id packed
// into one key so that a compare-and-swap maximum decides both at once,
// whatever order the invocations arrive in.
void recordFastest(uint speed, uint id) {
    uint key = (min(speed, 0xffffu) << 16) | (0xffffu - (id & 0xffffu));
    uint seen = fastestKey;
    while (key > seen) {
        uint was = atomicCompSwap(fastestKey, seen, key);
        if (was == seen) {
            break;
        }
        seen = was;
    }
}

uint cellOf(ivec3 position, out bool inside) {
    ivec2 c = position.xy >> int(cellShift);
    inside = c.x >= 0 && c.y >= 0 && uint(c.x) < gridSize && uint(c.y) < gridSize;
    uvec2 clamped = uvec2(clamp(c, ivec2(0), ivec2(int(gridSize) - 1)));
    return clamped.y * gridSize + clamped.x;
}

void binParticle(uint id, Particle p) {
    bool inside;
    uint cell = cellOf(p.position.xyz, inside);
    if (!inside) {
        atomicAdd(outsideGrid, 1u);
    }
    atomicAdd(cellCount[cell], 1u);
    atomicMin(lowestInCell[cell], id);
    atomicAdd(cellChecksum[cell], scramble(id));
    uint row = cell / gridSize;
    atomicOr(occupiedRows[row], 1u << (cell % gridSize % 32u));
    atomicAdd(kindCount[uint(p.position.w) & 3u], 1u);
    atomicMax(oldest, uint(p.velocity.w));
}

void main() {
    uint local = gl_LocalInvocationIndex;
    uint id = gl_GlobalInvocationID.x;
    uint count = uint(particles.length());

    if (local < SPEED_BINS) {
        tileBins[local] = 0u;
    }
    if (local == 0u) {
        tilePushes = 0u;
        tileLow[0] = 2147483647;
        tileLow[1] = 2147483647;
        tileHigh[0] = -2147483647 - 1;
        tileHigh[1] = -2147483647 - 1;
    }

    Particle p;
    bool alive = id < count;
    if (alive) {
        p = spawn(id, particles[id]);
        tilePosition[local] = p.position;
    } else {
        tilePosition[local] = ivec4(-1000000);
    }
    barrier();

    // Pairs inside this workgroup's tile push each other apart.
    ivec3 push = ivec3(0);
    uint pushCount = 0u;
    if (alive) {
        for (uint j = 0u; j < TILE; ++j) {
            if (j == local) {
                continue;
            }
            push += pushFrom(p.position.xyz, tilePosition[j].xyz, pushCount);
        }
    }
    atomicAdd(tilePushes, pushCount);

    bool bounced = false;
    if (alive) {
        p.velocity.xyz += push + kindForce(p.position.w, p.velocity.xyz, p.velocity.w);
        p.velocity.y += gravity;
        if (respawn(p, id)) {
            atomicAdd(respawned, 1u);
        }
        p.position.xyz += p.velocity.xyz;
        bool bx = bounce(p.position.x, p.velocity.x);
        bool by = bounce(p.position.y, p.velocity.y);
        bool bz = bounce(p.position.z, p.velocity.z);
        bounced = bx || by || bz;
        p.velocity.w += 1;
        moved[id] = p;

        atomicAdd(tileBins[speedBin(p.velocity.xyz)], 1u);
        atomicMin(tileLow[0], p.position.x);
        atomicMin(tileLow[1], p.position.y);
        atomicMax(tileHigh[0], p.position.x);
        atomicMax(tileHigh[1], p.position.y);
        if (bounced) {
            atomicAdd(bounces, 1u);
        }
        binParticle(id, p);
        ivec3 v = p.velocity.xyz;
        recordFastest(uint(abs(v.x) + abs(v.y) + abs(v.z)), id);
    }
    barrier();

    // One global atomic per bin and per bound for the whole workgroup.
    if (local < SPEED_BINS && tileBins[local] != 0u) {
        atomicAdd(speedBins[local], tileBins[local]);
    }
    if (local == 0u) {
        atomicAdd(pushes, tilePushes);
        atomicMin(lowXY.x, tileLow[0]);
        atomicMin(lowXY.y, tileLow[1]);
        atomicMax(highXY.x, tileHigh[0]);
        atomicMax(highXY.y, tileHigh[1]);
    }
}
