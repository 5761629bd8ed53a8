"""Builds the compiled matcher kernel (``kgsvc.retrieval._kernel``, Cython → C++); everything else is in
pyproject.toml. ``pip install -e .`` builds it in place."""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(
    ext_modules=cythonize(
        [
            Extension(
                "kgsvc.retrieval._kernel",
                ["kgsvc/retrieval/_kernel.pyx"],
                include_dirs=[numpy.get_include()],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                extra_compile_args=["-O3"],
                language="c++",
            )
        ],
        compiler_directives={"language_level": "3"},
    )
)
