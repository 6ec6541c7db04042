"""The advisor behind `gpuwise plan`: scenario → candidates → feasibility → ranking → reasons."""
