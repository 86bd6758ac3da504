pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// Proves knowledge of two field elements whose Poseidon hash is the public output.
template PoseidonPreimage() {
    signal input a;
    signal input b;
    signal output hash;
    component h = Poseidon(2);
    h.inputs[0] <== a;
    h.inputs[1] <== b;
    hash <== h.out;
}

component main = PoseidonPreimage();
