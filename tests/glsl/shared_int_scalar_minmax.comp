#version 450
// int atomics on `shared` int scalars (atomicMin/atomicMax/atomicExchange) reduced into a global int pair.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Input {
    int data[];
};

layout(set = 0, binding = 1) buffer Result {
    int group_min;
    int group_max;
    int last_writer;
};

shared int s_min;
shared int s_max;
shared int s_last;

void main() {
    if (gl_LocalInvocationIndex == 0u) {
        s_min = 2147483647;
        s_max = -2147483647 - 1;
        s_last = -1;
    }
    memoryBarrierShared();
    barrier();
    int v = data[gl_GlobalInvocationID.x];
    atomicMin(s_min, v);
    atomicMax(s_max, v);
    atomicExchange(s_last, int(gl_LocalInvocationIndex));
    memoryBarrierShared();
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        atomicMin(group_min, s_min);
        atomicMax(group_max, s_max);
        atomicExchange(last_writer, s_last);
    }
}
// run: --groups 4
// run: --buffer Input=i32:[-100,-63,-26,11,48,85,-79,-42,-5,32,69,-95,-58,-21,16,53,90,-74,-37,0,37,74,-90,-53,-16,21,58,95,-69,-32,5,42,79,-85,-48,-11,26,63,100,-64,-27,10,47,84,-80,-43,-6,31,68,-96,-59,-22,15,52,89,-75,-38,-1,36,73,-91,-54,-17,20,7,44,-120,-83,-46,-9,28,-136,-99,-62,-25,12,49,-115,-78,-41,-4,33,-131,-94,-57,-20,17,-147,-110,-73,-36,1,38,-126,-89,-52,-15,22,-142,-105,-68,-31,6,43,-121,-84,-47,-10,27,-137,-100,-63,-26,11,48,-116,-79,-42,-5,32,-132,-95,-58,-21,16,-148,-111,-74,-87,-50,-13,-177,-140,-103,-66,-29,-193,-156,-119,-82,-45,-8,-172,-135,-98,-61,-24,-188,-151,-114,-77,-40,-3,-167,-130,-93,-56,-19,-183,-146,-109,-72,-35,-199,-162,-125,-88,-51,-14,-178,-141,-104,-67,-30,-194,-157,-120,-83,-46,-9,-173,-136,-99,-62,-25,-189,-152,-115,-78,-41,-4,-168,-181,-144,-107,-70,-234,-197,-160,-123,-86,-250,-213,-176,-139,-102,-65,-229,-192,-155,-118,-81,-245,-208,-171,-134,-97,-60,-224,-187,-150,-113,-76,-240,-203,-166,-129,-92,-55,-219,-182,-145,-108,-71,-235,-198,-161,-124,-87,-50,-214,-177,-140,-103,-66,-230,-193,-156,-119,-82,-246,-209,-172,-135,-98,-61]
// run: --buffer Result=i32:[1000,-1000,7]
