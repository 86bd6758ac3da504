// Exception types thrown inside the engine; the C API maps each to a status code.
#pragma once

#include <stdexcept>
#include <string>

namespace helib {

struct InvalidArgument : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};
struct InsecureParameters : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct Mismatch : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct NoiseBudgetExhausted : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct MissingKey : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct LevelError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct BufferTooSmall : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace helib
