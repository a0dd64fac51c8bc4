#version 45é
layout(local_size_x = 1) in;
void main() {}
