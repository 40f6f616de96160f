"""Audio decoding, the checks every clip passes before ASR, and the one WAV writer."""
