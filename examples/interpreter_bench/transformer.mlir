module @jit_transformer attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x128x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256x256xf32>, %arg3: tensor<256x256xf32>, %arg4: tensor<256x256xf32>, %arg5: tensor<256x1024xf32>, %arg6: tensor<1024x256xf32>, %arg7: tensor<256xf32>, %arg8: tensor<256xf32>, %arg9: tensor<256x256xf32>, %arg10: tensor<256x256xf32>, %arg11: tensor<256x256xf32>, %arg12: tensor<256x256xf32>, %arg13: tensor<256x1024xf32>, %arg14: tensor<1024x256xf32>, %arg15: tensor<256xf32>, %arg16: tensor<256xf32>, %arg17: tensor<256x256xf32>, %arg18: tensor<256x256xf32>, %arg19: tensor<256x256xf32>, %arg20: tensor<256x256xf32>, %arg21: tensor<256x1024xf32>, %arg22: tensor<1024x256xf32>, %arg23: tensor<256xf32>, %arg24: tensor<256xf32>, %arg25: tensor<256x256xf32>, %arg26: tensor<256x256xf32>, %arg27: tensor<256x256xf32>, %arg28: tensor<256x256xf32>, %arg29: tensor<256x1024xf32>, %arg30: tensor<1024x256xf32>, %arg31: tensor<256xf32>, %arg32: tensor<256xf32>) -> (tensor<4x128x256xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<4x128x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x128x256xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<4x128x256xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_2 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<4x128x1xf32>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %12 = stablehlo.subtract %arg0, %11 : tensor<4x128x256xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %14 = stablehlo.add %10, %13 : tensor<4x128x1xf32>
    %15 = stablehlo.rsqrt %14 : tensor<4x128x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %17 = stablehlo.multiply %12, %16 : tensor<4x128x256xf32>
    %18 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<4x128x256xf32>
    %20 = stablehlo.multiply %17, %19 : tensor<4x128x256xf32>
    %21 = stablehlo.dot_general %20, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %22 = stablehlo.reshape %21 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %23 = stablehlo.transpose %22, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %24 = stablehlo.dot_general %20, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %25 = stablehlo.reshape %24 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %26 = stablehlo.transpose %25, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %27 = stablehlo.dot_general %20, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %28 = stablehlo.reshape %27 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %29 = stablehlo.transpose %28, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %30 = stablehlo.transpose %26, dims = [0, 1, 3, 2] : (tensor<4x8x128x32xf32>) -> tensor<4x8x32x128xf32>
    %31 = stablehlo.dot_general %23, %30, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x128x32xf32>, tensor<4x8x32x128xf32>) -> tensor<4x8x128x128xf32>
    %cst_4 = stablehlo.constant dense<5.65685415> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x8x128x128xf32>
    %33 = stablehlo.divide %31, %32 : tensor<4x8x128x128xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_5) applies stablehlo.maximum across dimensions = [3] : (tensor<4x8x128x128xf32>, tensor<f32>) -> tensor<4x8x128xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x8x128xf32>
    %36 = stablehlo.maximum %35, %34 : tensor<4x8x128xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 1, 2] : (tensor<4x8x128xf32>) -> tensor<4x8x128x1xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2, 3] : (tensor<4x8x128x1xf32>) -> tensor<4x8x128x128xf32>
    %39 = stablehlo.subtract %33, %38 : tensor<4x8x128x128xf32>
    %40 = stablehlo.exponential %39 : tensor<4x8x128x128xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %41 = stablehlo.reduce(%40 init: %cst_7) applies stablehlo.add across dimensions = [3] : (tensor<4x8x128x128xf32>, tensor<f32>) -> tensor<4x8x128xf32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0, 1, 2] : (tensor<4x8x128xf32>) -> tensor<4x8x128x1xf32>
    %43 = stablehlo.broadcast_in_dim %42, dims = [0, 1, 2, 3] : (tensor<4x8x128x1xf32>) -> tensor<4x8x128x128xf32>
    %44 = stablehlo.divide %40, %43 : tensor<4x8x128x128xf32>
    %45 = stablehlo.dot_general %44, %29, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x128x128xf32>, tensor<4x8x128x32xf32>) -> tensor<4x8x128x32xf32>
    %46 = stablehlo.transpose %45, dims = [0, 2, 1, 3] : (tensor<4x8x128x32xf32>) -> tensor<4x128x8x32xf32>
    %47 = stablehlo.reshape %46 : (tensor<4x128x8x32xf32>) -> tensor<4x128x256xf32>
    %48 = stablehlo.dot_general %47, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %49 = stablehlo.add %arg0, %48 : tensor<4x128x256xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.reduce(%49 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_9 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %53 = stablehlo.divide %51, %52 : tensor<4x128x1xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %55 = stablehlo.subtract %49, %54 : tensor<4x128x256xf32>
    %56 = stablehlo.multiply %55, %55 : tensor<4x128x256xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = stablehlo.reduce(%56 init: %cst_10) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_11 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %60 = stablehlo.divide %58, %59 : tensor<4x128x1xf32>
    %61 = stablehlo.broadcast_in_dim %53, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %62 = stablehlo.subtract %49, %61 : tensor<4x128x256xf32>
    %cst_12 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %64 = stablehlo.add %60, %63 : tensor<4x128x1xf32>
    %65 = stablehlo.rsqrt %64 : tensor<4x128x1xf32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %67 = stablehlo.multiply %62, %66 : tensor<4x128x256xf32>
    %68 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<4x128x256xf32>
    %70 = stablehlo.multiply %67, %69 : tensor<4x128x256xf32>
    %71 = stablehlo.dot_general %70, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x1024xf32>) -> tensor<4x128x1024xf32>
    %cst_13 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4x128x1024xf32>
    %73 = stablehlo.multiply %72, %71 : tensor<4x128x1024xf32>
    %74 = stablehlo.negate %71 : tensor<4x128x1024xf32>
    %cst_14 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4x128x1024xf32>
    %76 = stablehlo.multiply %74, %75 : tensor<4x128x1024xf32>
    %77 = chlo.erfc %76 : tensor<4x128x1024xf32> -> tensor<4x128x1024xf32>
    %78 = stablehlo.multiply %73, %77 : tensor<4x128x1024xf32>
    %79 = stablehlo.dot_general %78, %arg6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x1024xf32>, tensor<1024x256xf32>) -> tensor<4x128x256xf32>
    %80 = stablehlo.add %49, %79 : tensor<4x128x256xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %81 = stablehlo.reduce(%80 init: %cst_15) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %82 = stablehlo.broadcast_in_dim %81, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_16 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %84 = stablehlo.divide %82, %83 : tensor<4x128x1xf32>
    %85 = stablehlo.broadcast_in_dim %84, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %86 = stablehlo.subtract %80, %85 : tensor<4x128x256xf32>
    %87 = stablehlo.multiply %86, %86 : tensor<4x128x256xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %88 = stablehlo.reduce(%87 init: %cst_17) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_18 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %90 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %91 = stablehlo.divide %89, %90 : tensor<4x128x1xf32>
    %92 = stablehlo.broadcast_in_dim %84, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %93 = stablehlo.subtract %80, %92 : tensor<4x128x256xf32>
    %cst_19 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %95 = stablehlo.add %91, %94 : tensor<4x128x1xf32>
    %96 = stablehlo.rsqrt %95 : tensor<4x128x1xf32>
    %97 = stablehlo.broadcast_in_dim %96, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %98 = stablehlo.multiply %93, %97 : tensor<4x128x256xf32>
    %99 = stablehlo.broadcast_in_dim %arg15, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %100 = stablehlo.broadcast_in_dim %99, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<4x128x256xf32>
    %101 = stablehlo.multiply %98, %100 : tensor<4x128x256xf32>
    %102 = stablehlo.dot_general %101, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %103 = stablehlo.reshape %102 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %104 = stablehlo.transpose %103, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %105 = stablehlo.dot_general %101, %arg10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %106 = stablehlo.reshape %105 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %107 = stablehlo.transpose %106, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %108 = stablehlo.dot_general %101, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %109 = stablehlo.reshape %108 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %110 = stablehlo.transpose %109, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %111 = stablehlo.transpose %107, dims = [0, 1, 3, 2] : (tensor<4x8x128x32xf32>) -> tensor<4x8x32x128xf32>
    %112 = stablehlo.dot_general %104, %111, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x128x32xf32>, tensor<4x8x32x128xf32>) -> tensor<4x8x128x128xf32>
    %cst_20 = stablehlo.constant dense<5.65685415> : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<4x8x128x128xf32>
    %114 = stablehlo.divide %112, %113 : tensor<4x8x128x128xf32>
    %cst_21 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %115 = stablehlo.reduce(%114 init: %cst_21) applies stablehlo.maximum across dimensions = [3] : (tensor<4x8x128x128xf32>, tensor<f32>) -> tensor<4x8x128xf32>
    %cst_22 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4x8x128xf32>
    %117 = stablehlo.maximum %116, %115 : tensor<4x8x128xf32>
    %118 = stablehlo.broadcast_in_dim %117, dims = [0, 1, 2] : (tensor<4x8x128xf32>) -> tensor<4x8x128x1xf32>
    %119 = stablehlo.broadcast_in_dim %118, dims = [0, 1, 2, 3] : (tensor<4x8x128x1xf32>) -> tensor<4x8x128x128xf32>
    %120 = stablehlo.subtract %114, %119 : tensor<4x8x128x128xf32>
    %121 = stablehlo.exponential %120 : tensor<4x8x128x128xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %122 = stablehlo.reduce(%121 init: %cst_23) applies stablehlo.add across dimensions = [3] : (tensor<4x8x128x128xf32>, tensor<f32>) -> tensor<4x8x128xf32>
    %123 = stablehlo.broadcast_in_dim %122, dims = [0, 1, 2] : (tensor<4x8x128xf32>) -> tensor<4x8x128x1xf32>
    %124 = stablehlo.broadcast_in_dim %123, dims = [0, 1, 2, 3] : (tensor<4x8x128x1xf32>) -> tensor<4x8x128x128xf32>
    %125 = stablehlo.divide %121, %124 : tensor<4x8x128x128xf32>
    %126 = stablehlo.dot_general %125, %110, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x128x128xf32>, tensor<4x8x128x32xf32>) -> tensor<4x8x128x32xf32>
    %127 = stablehlo.transpose %126, dims = [0, 2, 1, 3] : (tensor<4x8x128x32xf32>) -> tensor<4x128x8x32xf32>
    %128 = stablehlo.reshape %127 : (tensor<4x128x8x32xf32>) -> tensor<4x128x256xf32>
    %129 = stablehlo.dot_general %128, %arg12, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %130 = stablehlo.add %80, %129 : tensor<4x128x256xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %131 = stablehlo.reduce(%130 init: %cst_24) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %132 = stablehlo.broadcast_in_dim %131, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_25 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %133 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %134 = stablehlo.divide %132, %133 : tensor<4x128x1xf32>
    %135 = stablehlo.broadcast_in_dim %134, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %136 = stablehlo.subtract %130, %135 : tensor<4x128x256xf32>
    %137 = stablehlo.multiply %136, %136 : tensor<4x128x256xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %138 = stablehlo.reduce(%137 init: %cst_26) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %139 = stablehlo.broadcast_in_dim %138, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_27 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %140 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %141 = stablehlo.divide %139, %140 : tensor<4x128x1xf32>
    %142 = stablehlo.broadcast_in_dim %134, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %143 = stablehlo.subtract %130, %142 : tensor<4x128x256xf32>
    %cst_28 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %144 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %145 = stablehlo.add %141, %144 : tensor<4x128x1xf32>
    %146 = stablehlo.rsqrt %145 : tensor<4x128x1xf32>
    %147 = stablehlo.broadcast_in_dim %146, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %148 = stablehlo.multiply %143, %147 : tensor<4x128x256xf32>
    %149 = stablehlo.broadcast_in_dim %arg16, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %150 = stablehlo.broadcast_in_dim %149, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<4x128x256xf32>
    %151 = stablehlo.multiply %148, %150 : tensor<4x128x256xf32>
    %152 = stablehlo.dot_general %151, %arg13, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x1024xf32>) -> tensor<4x128x1024xf32>
    %cst_29 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %153 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<4x128x1024xf32>
    %154 = stablehlo.multiply %153, %152 : tensor<4x128x1024xf32>
    %155 = stablehlo.negate %152 : tensor<4x128x1024xf32>
    %cst_30 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %156 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<4x128x1024xf32>
    %157 = stablehlo.multiply %155, %156 : tensor<4x128x1024xf32>
    %158 = chlo.erfc %157 : tensor<4x128x1024xf32> -> tensor<4x128x1024xf32>
    %159 = stablehlo.multiply %154, %158 : tensor<4x128x1024xf32>
    %160 = stablehlo.dot_general %159, %arg14, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x1024xf32>, tensor<1024x256xf32>) -> tensor<4x128x256xf32>
    %161 = stablehlo.add %130, %160 : tensor<4x128x256xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %162 = stablehlo.reduce(%161 init: %cst_31) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %163 = stablehlo.broadcast_in_dim %162, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_32 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %164 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %165 = stablehlo.divide %163, %164 : tensor<4x128x1xf32>
    %166 = stablehlo.broadcast_in_dim %165, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %167 = stablehlo.subtract %161, %166 : tensor<4x128x256xf32>
    %168 = stablehlo.multiply %167, %167 : tensor<4x128x256xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %169 = stablehlo.reduce(%168 init: %cst_33) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %170 = stablehlo.broadcast_in_dim %169, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_34 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %171 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %172 = stablehlo.divide %170, %171 : tensor<4x128x1xf32>
    %173 = stablehlo.broadcast_in_dim %165, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %174 = stablehlo.subtract %161, %173 : tensor<4x128x256xf32>
    %cst_35 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %176 = stablehlo.add %172, %175 : tensor<4x128x1xf32>
    %177 = stablehlo.rsqrt %176 : tensor<4x128x1xf32>
    %178 = stablehlo.broadcast_in_dim %177, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %179 = stablehlo.multiply %174, %178 : tensor<4x128x256xf32>
    %180 = stablehlo.broadcast_in_dim %arg23, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %181 = stablehlo.broadcast_in_dim %180, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<4x128x256xf32>
    %182 = stablehlo.multiply %179, %181 : tensor<4x128x256xf32>
    %183 = stablehlo.dot_general %182, %arg17, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %184 = stablehlo.reshape %183 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %185 = stablehlo.transpose %184, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %186 = stablehlo.dot_general %182, %arg18, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %187 = stablehlo.reshape %186 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %188 = stablehlo.transpose %187, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %189 = stablehlo.dot_general %182, %arg19, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %190 = stablehlo.reshape %189 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %191 = stablehlo.transpose %190, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %192 = stablehlo.transpose %188, dims = [0, 1, 3, 2] : (tensor<4x8x128x32xf32>) -> tensor<4x8x32x128xf32>
    %193 = stablehlo.dot_general %185, %192, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x128x32xf32>, tensor<4x8x32x128xf32>) -> tensor<4x8x128x128xf32>
    %cst_36 = stablehlo.constant dense<5.65685415> : tensor<f32>
    %194 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<4x8x128x128xf32>
    %195 = stablehlo.divide %193, %194 : tensor<4x8x128x128xf32>
    %cst_37 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %196 = stablehlo.reduce(%195 init: %cst_37) applies stablehlo.maximum across dimensions = [3] : (tensor<4x8x128x128xf32>, tensor<f32>) -> tensor<4x8x128xf32>
    %cst_38 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %197 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<4x8x128xf32>
    %198 = stablehlo.maximum %197, %196 : tensor<4x8x128xf32>
    %199 = stablehlo.broadcast_in_dim %198, dims = [0, 1, 2] : (tensor<4x8x128xf32>) -> tensor<4x8x128x1xf32>
    %200 = stablehlo.broadcast_in_dim %199, dims = [0, 1, 2, 3] : (tensor<4x8x128x1xf32>) -> tensor<4x8x128x128xf32>
    %201 = stablehlo.subtract %195, %200 : tensor<4x8x128x128xf32>
    %202 = stablehlo.exponential %201 : tensor<4x8x128x128xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %203 = stablehlo.reduce(%202 init: %cst_39) applies stablehlo.add across dimensions = [3] : (tensor<4x8x128x128xf32>, tensor<f32>) -> tensor<4x8x128xf32>
    %204 = stablehlo.broadcast_in_dim %203, dims = [0, 1, 2] : (tensor<4x8x128xf32>) -> tensor<4x8x128x1xf32>
    %205 = stablehlo.broadcast_in_dim %204, dims = [0, 1, 2, 3] : (tensor<4x8x128x1xf32>) -> tensor<4x8x128x128xf32>
    %206 = stablehlo.divide %202, %205 : tensor<4x8x128x128xf32>
    %207 = stablehlo.dot_general %206, %191, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x128x128xf32>, tensor<4x8x128x32xf32>) -> tensor<4x8x128x32xf32>
    %208 = stablehlo.transpose %207, dims = [0, 2, 1, 3] : (tensor<4x8x128x32xf32>) -> tensor<4x128x8x32xf32>
    %209 = stablehlo.reshape %208 : (tensor<4x128x8x32xf32>) -> tensor<4x128x256xf32>
    %210 = stablehlo.dot_general %209, %arg20, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %211 = stablehlo.add %161, %210 : tensor<4x128x256xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %212 = stablehlo.reduce(%211 init: %cst_40) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %213 = stablehlo.broadcast_in_dim %212, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_41 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %214 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %215 = stablehlo.divide %213, %214 : tensor<4x128x1xf32>
    %216 = stablehlo.broadcast_in_dim %215, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %217 = stablehlo.subtract %211, %216 : tensor<4x128x256xf32>
    %218 = stablehlo.multiply %217, %217 : tensor<4x128x256xf32>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %219 = stablehlo.reduce(%218 init: %cst_42) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %220 = stablehlo.broadcast_in_dim %219, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_43 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %221 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %222 = stablehlo.divide %220, %221 : tensor<4x128x1xf32>
    %223 = stablehlo.broadcast_in_dim %215, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %224 = stablehlo.subtract %211, %223 : tensor<4x128x256xf32>
    %cst_44 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %225 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %226 = stablehlo.add %222, %225 : tensor<4x128x1xf32>
    %227 = stablehlo.rsqrt %226 : tensor<4x128x1xf32>
    %228 = stablehlo.broadcast_in_dim %227, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %229 = stablehlo.multiply %224, %228 : tensor<4x128x256xf32>
    %230 = stablehlo.broadcast_in_dim %arg24, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %231 = stablehlo.broadcast_in_dim %230, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<4x128x256xf32>
    %232 = stablehlo.multiply %229, %231 : tensor<4x128x256xf32>
    %233 = stablehlo.dot_general %232, %arg21, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x1024xf32>) -> tensor<4x128x1024xf32>
    %cst_45 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %234 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<4x128x1024xf32>
    %235 = stablehlo.multiply %234, %233 : tensor<4x128x1024xf32>
    %236 = stablehlo.negate %233 : tensor<4x128x1024xf32>
    %cst_46 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %237 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<4x128x1024xf32>
    %238 = stablehlo.multiply %236, %237 : tensor<4x128x1024xf32>
    %239 = chlo.erfc %238 : tensor<4x128x1024xf32> -> tensor<4x128x1024xf32>
    %240 = stablehlo.multiply %235, %239 : tensor<4x128x1024xf32>
    %241 = stablehlo.dot_general %240, %arg22, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x1024xf32>, tensor<1024x256xf32>) -> tensor<4x128x256xf32>
    %242 = stablehlo.add %211, %241 : tensor<4x128x256xf32>
    %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %243 = stablehlo.reduce(%242 init: %cst_47) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %244 = stablehlo.broadcast_in_dim %243, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_48 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %245 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %246 = stablehlo.divide %244, %245 : tensor<4x128x1xf32>
    %247 = stablehlo.broadcast_in_dim %246, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %248 = stablehlo.subtract %242, %247 : tensor<4x128x256xf32>
    %249 = stablehlo.multiply %248, %248 : tensor<4x128x256xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %250 = stablehlo.reduce(%249 init: %cst_49) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %251 = stablehlo.broadcast_in_dim %250, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_50 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %252 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %253 = stablehlo.divide %251, %252 : tensor<4x128x1xf32>
    %254 = stablehlo.broadcast_in_dim %246, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %255 = stablehlo.subtract %242, %254 : tensor<4x128x256xf32>
    %cst_51 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %256 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %257 = stablehlo.add %253, %256 : tensor<4x128x1xf32>
    %258 = stablehlo.rsqrt %257 : tensor<4x128x1xf32>
    %259 = stablehlo.broadcast_in_dim %258, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %260 = stablehlo.multiply %255, %259 : tensor<4x128x256xf32>
    %261 = stablehlo.broadcast_in_dim %arg31, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %262 = stablehlo.broadcast_in_dim %261, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<4x128x256xf32>
    %263 = stablehlo.multiply %260, %262 : tensor<4x128x256xf32>
    %264 = stablehlo.dot_general %263, %arg25, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %265 = stablehlo.reshape %264 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %266 = stablehlo.transpose %265, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %267 = stablehlo.dot_general %263, %arg26, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %268 = stablehlo.reshape %267 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %269 = stablehlo.transpose %268, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %270 = stablehlo.dot_general %263, %arg27, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %271 = stablehlo.reshape %270 : (tensor<4x128x256xf32>) -> tensor<4x128x8x32xf32>
    %272 = stablehlo.transpose %271, dims = [0, 2, 1, 3] : (tensor<4x128x8x32xf32>) -> tensor<4x8x128x32xf32>
    %273 = stablehlo.transpose %269, dims = [0, 1, 3, 2] : (tensor<4x8x128x32xf32>) -> tensor<4x8x32x128xf32>
    %274 = stablehlo.dot_general %266, %273, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x128x32xf32>, tensor<4x8x32x128xf32>) -> tensor<4x8x128x128xf32>
    %cst_52 = stablehlo.constant dense<5.65685415> : tensor<f32>
    %275 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<4x8x128x128xf32>
    %276 = stablehlo.divide %274, %275 : tensor<4x8x128x128xf32>
    %cst_53 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %277 = stablehlo.reduce(%276 init: %cst_53) applies stablehlo.maximum across dimensions = [3] : (tensor<4x8x128x128xf32>, tensor<f32>) -> tensor<4x8x128xf32>
    %cst_54 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %278 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<4x8x128xf32>
    %279 = stablehlo.maximum %278, %277 : tensor<4x8x128xf32>
    %280 = stablehlo.broadcast_in_dim %279, dims = [0, 1, 2] : (tensor<4x8x128xf32>) -> tensor<4x8x128x1xf32>
    %281 = stablehlo.broadcast_in_dim %280, dims = [0, 1, 2, 3] : (tensor<4x8x128x1xf32>) -> tensor<4x8x128x128xf32>
    %282 = stablehlo.subtract %276, %281 : tensor<4x8x128x128xf32>
    %283 = stablehlo.exponential %282 : tensor<4x8x128x128xf32>
    %cst_55 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %284 = stablehlo.reduce(%283 init: %cst_55) applies stablehlo.add across dimensions = [3] : (tensor<4x8x128x128xf32>, tensor<f32>) -> tensor<4x8x128xf32>
    %285 = stablehlo.broadcast_in_dim %284, dims = [0, 1, 2] : (tensor<4x8x128xf32>) -> tensor<4x8x128x1xf32>
    %286 = stablehlo.broadcast_in_dim %285, dims = [0, 1, 2, 3] : (tensor<4x8x128x1xf32>) -> tensor<4x8x128x128xf32>
    %287 = stablehlo.divide %283, %286 : tensor<4x8x128x128xf32>
    %288 = stablehlo.dot_general %287, %272, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x8x128x128xf32>, tensor<4x8x128x32xf32>) -> tensor<4x8x128x32xf32>
    %289 = stablehlo.transpose %288, dims = [0, 2, 1, 3] : (tensor<4x8x128x32xf32>) -> tensor<4x128x8x32xf32>
    %290 = stablehlo.reshape %289 : (tensor<4x128x8x32xf32>) -> tensor<4x128x256xf32>
    %291 = stablehlo.dot_general %290, %arg28, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x256xf32>) -> tensor<4x128x256xf32>
    %292 = stablehlo.add %242, %291 : tensor<4x128x256xf32>
    %cst_56 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %293 = stablehlo.reduce(%292 init: %cst_56) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %294 = stablehlo.broadcast_in_dim %293, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_57 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %295 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %296 = stablehlo.divide %294, %295 : tensor<4x128x1xf32>
    %297 = stablehlo.broadcast_in_dim %296, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %298 = stablehlo.subtract %292, %297 : tensor<4x128x256xf32>
    %299 = stablehlo.multiply %298, %298 : tensor<4x128x256xf32>
    %cst_58 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %300 = stablehlo.reduce(%299 init: %cst_58) applies stablehlo.add across dimensions = [2] : (tensor<4x128x256xf32>, tensor<f32>) -> tensor<4x128xf32>
    %301 = stablehlo.broadcast_in_dim %300, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %cst_59 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %302 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %303 = stablehlo.divide %301, %302 : tensor<4x128x1xf32>
    %304 = stablehlo.broadcast_in_dim %296, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %305 = stablehlo.subtract %292, %304 : tensor<4x128x256xf32>
    %cst_60 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %306 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<4x128x1xf32>
    %307 = stablehlo.add %303, %306 : tensor<4x128x1xf32>
    %308 = stablehlo.rsqrt %307 : tensor<4x128x1xf32>
    %309 = stablehlo.broadcast_in_dim %308, dims = [0, 1, 2] : (tensor<4x128x1xf32>) -> tensor<4x128x256xf32>
    %310 = stablehlo.multiply %305, %309 : tensor<4x128x256xf32>
    %311 = stablehlo.broadcast_in_dim %arg32, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %312 = stablehlo.broadcast_in_dim %311, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<4x128x256xf32>
    %313 = stablehlo.multiply %310, %312 : tensor<4x128x256xf32>
    %314 = stablehlo.dot_general %313, %arg29, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x256xf32>, tensor<256x1024xf32>) -> tensor<4x128x1024xf32>
    %cst_61 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %315 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<4x128x1024xf32>
    %316 = stablehlo.multiply %315, %314 : tensor<4x128x1024xf32>
    %317 = stablehlo.negate %314 : tensor<4x128x1024xf32>
    %cst_62 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %318 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<4x128x1024xf32>
    %319 = stablehlo.multiply %317, %318 : tensor<4x128x1024xf32>
    %320 = chlo.erfc %319 : tensor<4x128x1024xf32> -> tensor<4x128x1024xf32>
    %321 = stablehlo.multiply %316, %320 : tensor<4x128x1024xf32>
    %322 = stablehlo.dot_general %321, %arg30, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x1024xf32>, tensor<1024x256xf32>) -> tensor<4x128x256xf32>
    %323 = stablehlo.add %292, %322 : tensor<4x128x256xf32>
    return %323 : tensor<4x128x256xf32>
  }
}
