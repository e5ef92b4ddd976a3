"""Model layer: registry of teachers and students, ONNX export, ONNX Runtime inference."""
