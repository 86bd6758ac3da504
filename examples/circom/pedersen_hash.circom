pragma circom 2.0.0;

include "circomlib/circuits/pedersen.circom";
include "circomlib/circuits/bitify.circom";

// Proves knowledge of a 248-bit value whose Pedersen hash (a Baby Jubjub point) is public.
template PedersenHash() {
    signal input value;
    signal output hash[2];
    component bits = Num2Bits(248);
    bits.in <== value;
    component h = Pedersen(248);
    for (var i = 0; i < 248; i++) {
        h.in[i] <== bits.out[i];
    }
    hash[0] <== h.out[0];
    hash[1] <== h.out[1];
}

component main = PedersenHash();
