module @jit_deviation_program attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x16xf32>, %arg1: tensor<16x16xf32>, %arg2: tensor<16x16xf32>, %arg3: tensor<16x16xf32>, %arg4: tensor<16x16xf32>, %arg5: tensor<16x16xf32>, %arg6: tensor<16x16xf32>, %arg7: tensor<16x16xf32>, %arg8: tensor<16x16xf32>) -> (tensor<4x16xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.tanh %0 : tensor<4x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %5 = stablehlo.divide %3, %4 : tensor<4x1xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %7 = stablehlo.subtract %1, %6 : tensor<4x16xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<4x16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%8 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<4x1xf32>
    %13 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %14 = stablehlo.subtract %1, %13 : tensor<4x16xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %16 = stablehlo.add %12, %15 : tensor<4x1xf32>
    %17 = stablehlo.sqrt %16 : tensor<4x1xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %19 = stablehlo.divide %14, %18 : tensor<4x16xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %20 = stablehlo.reduce(%19 init: %cst_4) applies stablehlo.maximum across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %22 = stablehlo.maximum %21, %20 : tensor<4xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %25 = stablehlo.subtract %19, %24 : tensor<4x16xf32>
    %26 = stablehlo.exponential %25 : tensor<4x16xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %27 = stablehlo.reduce(%26 init: %cst_6) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %30 = stablehlo.divide %26, %29 : tensor<4x16xf32>
    %cst_7 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %32 = stablehlo.multiply %30, %31 : tensor<4x16xf32>
    %33 = stablehlo.multiply %19, %19 : tensor<4x16xf32>
    %34 = stablehlo.multiply %33, %19 : tensor<4x16xf32>
    %cst_8 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %36 = stablehlo.multiply %35, %34 : tensor<4x16xf32>
    %37 = stablehlo.add %19, %36 : tensor<4x16xf32>
    %cst_9 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %39 = stablehlo.multiply %38, %37 : tensor<4x16xf32>
    %40 = stablehlo.tanh %39 : tensor<4x16xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %42 = stablehlo.add %41, %40 : tensor<4x16xf32>
    %cst_11 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %44 = stablehlo.multiply %43, %42 : tensor<4x16xf32>
    %45 = stablehlo.multiply %19, %44 : tensor<4x16xf32>
    %46 = stablehlo.add %32, %45 : tensor<4x16xf32>
    %47 = stablehlo.dot_general %46, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %48 = stablehlo.tanh %47 : tensor<4x16xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.reduce(%48 init: %cst_12) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_13 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %52 = stablehlo.divide %50, %51 : tensor<4x1xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %54 = stablehlo.subtract %48, %53 : tensor<4x16xf32>
    %55 = stablehlo.multiply %54, %54 : tensor<4x16xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %56 = stablehlo.reduce(%55 init: %cst_14) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_15 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %59 = stablehlo.divide %57, %58 : tensor<4x1xf32>
    %60 = stablehlo.broadcast_in_dim %52, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %61 = stablehlo.subtract %48, %60 : tensor<4x16xf32>
    %cst_16 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %63 = stablehlo.add %59, %62 : tensor<4x1xf32>
    %64 = stablehlo.sqrt %63 : tensor<4x1xf32>
    %65 = stablehlo.broadcast_in_dim %64, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %66 = stablehlo.divide %61, %65 : tensor<4x16xf32>
    %cst_17 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %67 = stablehlo.reduce(%66 init: %cst_17) applies stablehlo.maximum across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_18 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %69 = stablehlo.maximum %68, %67 : tensor<4xf32>
    %70 = stablehlo.broadcast_in_dim %69, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %71 = stablehlo.broadcast_in_dim %70, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %72 = stablehlo.subtract %66, %71 : tensor<4x16xf32>
    %73 = stablehlo.exponential %72 : tensor<4x16xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %74 = stablehlo.reduce(%73 init: %cst_19) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %76 = stablehlo.broadcast_in_dim %75, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %77 = stablehlo.divide %73, %76 : tensor<4x16xf32>
    %cst_20 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %78 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %79 = stablehlo.multiply %77, %78 : tensor<4x16xf32>
    %80 = stablehlo.multiply %66, %66 : tensor<4x16xf32>
    %81 = stablehlo.multiply %80, %66 : tensor<4x16xf32>
    %cst_21 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %83 = stablehlo.multiply %82, %81 : tensor<4x16xf32>
    %84 = stablehlo.add %66, %83 : tensor<4x16xf32>
    %cst_22 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %86 = stablehlo.multiply %85, %84 : tensor<4x16xf32>
    %87 = stablehlo.tanh %86 : tensor<4x16xf32>
    %cst_23 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %89 = stablehlo.add %88, %87 : tensor<4x16xf32>
    %cst_24 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %90 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %91 = stablehlo.multiply %90, %89 : tensor<4x16xf32>
    %92 = stablehlo.multiply %66, %91 : tensor<4x16xf32>
    %93 = stablehlo.add %79, %92 : tensor<4x16xf32>
    %94 = stablehlo.dot_general %93, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %95 = stablehlo.tanh %94 : tensor<4x16xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %96 = stablehlo.reduce(%95 init: %cst_25) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %97 = stablehlo.broadcast_in_dim %96, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_26 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %99 = stablehlo.divide %97, %98 : tensor<4x1xf32>
    %100 = stablehlo.broadcast_in_dim %99, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %101 = stablehlo.subtract %95, %100 : tensor<4x16xf32>
    %102 = stablehlo.multiply %101, %101 : tensor<4x16xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %103 = stablehlo.reduce(%102 init: %cst_27) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %104 = stablehlo.broadcast_in_dim %103, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_28 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %106 = stablehlo.divide %104, %105 : tensor<4x1xf32>
    %107 = stablehlo.broadcast_in_dim %99, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %108 = stablehlo.subtract %95, %107 : tensor<4x16xf32>
    %cst_29 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %109 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %110 = stablehlo.add %106, %109 : tensor<4x1xf32>
    %111 = stablehlo.sqrt %110 : tensor<4x1xf32>
    %112 = stablehlo.broadcast_in_dim %111, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %113 = stablehlo.divide %108, %112 : tensor<4x16xf32>
    %cst_30 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %114 = stablehlo.reduce(%113 init: %cst_30) applies stablehlo.maximum across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_31 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %115 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %116 = stablehlo.maximum %115, %114 : tensor<4xf32>
    %117 = stablehlo.broadcast_in_dim %116, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %118 = stablehlo.broadcast_in_dim %117, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %119 = stablehlo.subtract %113, %118 : tensor<4x16xf32>
    %120 = stablehlo.exponential %119 : tensor<4x16xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %121 = stablehlo.reduce(%120 init: %cst_32) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %122 = stablehlo.broadcast_in_dim %121, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %123 = stablehlo.broadcast_in_dim %122, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %124 = stablehlo.divide %120, %123 : tensor<4x16xf32>
    %cst_33 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %125 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %126 = stablehlo.multiply %124, %125 : tensor<4x16xf32>
    %127 = stablehlo.multiply %113, %113 : tensor<4x16xf32>
    %128 = stablehlo.multiply %127, %113 : tensor<4x16xf32>
    %cst_34 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %129 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %130 = stablehlo.multiply %129, %128 : tensor<4x16xf32>
    %131 = stablehlo.add %113, %130 : tensor<4x16xf32>
    %cst_35 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %133 = stablehlo.multiply %132, %131 : tensor<4x16xf32>
    %134 = stablehlo.tanh %133 : tensor<4x16xf32>
    %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %135 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %136 = stablehlo.add %135, %134 : tensor<4x16xf32>
    %cst_37 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %138 = stablehlo.multiply %137, %136 : tensor<4x16xf32>
    %139 = stablehlo.multiply %113, %138 : tensor<4x16xf32>
    %140 = stablehlo.add %126, %139 : tensor<4x16xf32>
    %141 = stablehlo.dot_general %140, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %142 = stablehlo.tanh %141 : tensor<4x16xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %143 = stablehlo.reduce(%142 init: %cst_38) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %144 = stablehlo.broadcast_in_dim %143, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_39 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %145 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %146 = stablehlo.divide %144, %145 : tensor<4x1xf32>
    %147 = stablehlo.broadcast_in_dim %146, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %148 = stablehlo.subtract %142, %147 : tensor<4x16xf32>
    %149 = stablehlo.multiply %148, %148 : tensor<4x16xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %150 = stablehlo.reduce(%149 init: %cst_40) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %151 = stablehlo.broadcast_in_dim %150, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_41 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %152 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %153 = stablehlo.divide %151, %152 : tensor<4x1xf32>
    %154 = stablehlo.broadcast_in_dim %146, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %155 = stablehlo.subtract %142, %154 : tensor<4x16xf32>
    %cst_42 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %156 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %157 = stablehlo.add %153, %156 : tensor<4x1xf32>
    %158 = stablehlo.sqrt %157 : tensor<4x1xf32>
    %159 = stablehlo.broadcast_in_dim %158, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %160 = stablehlo.divide %155, %159 : tensor<4x16xf32>
    %cst_43 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %161 = stablehlo.reduce(%160 init: %cst_43) applies stablehlo.maximum across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_44 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %162 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %163 = stablehlo.maximum %162, %161 : tensor<4xf32>
    %164 = stablehlo.broadcast_in_dim %163, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %165 = stablehlo.broadcast_in_dim %164, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %166 = stablehlo.subtract %160, %165 : tensor<4x16xf32>
    %167 = stablehlo.exponential %166 : tensor<4x16xf32>
    %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %168 = stablehlo.reduce(%167 init: %cst_45) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %169 = stablehlo.broadcast_in_dim %168, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %170 = stablehlo.broadcast_in_dim %169, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %171 = stablehlo.divide %167, %170 : tensor<4x16xf32>
    %cst_46 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %172 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %173 = stablehlo.multiply %171, %172 : tensor<4x16xf32>
    %174 = stablehlo.multiply %160, %160 : tensor<4x16xf32>
    %175 = stablehlo.multiply %174, %160 : tensor<4x16xf32>
    %cst_47 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %176 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %177 = stablehlo.multiply %176, %175 : tensor<4x16xf32>
    %178 = stablehlo.add %160, %177 : tensor<4x16xf32>
    %cst_48 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %179 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %180 = stablehlo.multiply %179, %178 : tensor<4x16xf32>
    %181 = stablehlo.tanh %180 : tensor<4x16xf32>
    %cst_49 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %182 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %183 = stablehlo.add %182, %181 : tensor<4x16xf32>
    %cst_50 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %184 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %185 = stablehlo.multiply %184, %183 : tensor<4x16xf32>
    %186 = stablehlo.multiply %160, %185 : tensor<4x16xf32>
    %187 = stablehlo.add %173, %186 : tensor<4x16xf32>
    %188 = stablehlo.dot_general %187, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %189 = stablehlo.tanh %188 : tensor<4x16xf32>
    %cst_51 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %190 = stablehlo.reduce(%189 init: %cst_51) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %191 = stablehlo.broadcast_in_dim %190, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_52 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %192 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %193 = stablehlo.divide %191, %192 : tensor<4x1xf32>
    %194 = stablehlo.broadcast_in_dim %193, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %195 = stablehlo.subtract %189, %194 : tensor<4x16xf32>
    %196 = stablehlo.multiply %195, %195 : tensor<4x16xf32>
    %cst_53 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %197 = stablehlo.reduce(%196 init: %cst_53) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %198 = stablehlo.broadcast_in_dim %197, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_54 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %199 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %200 = stablehlo.divide %198, %199 : tensor<4x1xf32>
    %201 = stablehlo.broadcast_in_dim %193, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %202 = stablehlo.subtract %189, %201 : tensor<4x16xf32>
    %cst_55 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %203 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %204 = stablehlo.add %200, %203 : tensor<4x1xf32>
    %205 = stablehlo.sqrt %204 : tensor<4x1xf32>
    %206 = stablehlo.broadcast_in_dim %205, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %207 = stablehlo.divide %202, %206 : tensor<4x16xf32>
    %cst_56 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %208 = stablehlo.reduce(%207 init: %cst_56) applies stablehlo.maximum across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_57 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %209 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %210 = stablehlo.maximum %209, %208 : tensor<4xf32>
    %211 = stablehlo.broadcast_in_dim %210, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %212 = stablehlo.broadcast_in_dim %211, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %213 = stablehlo.subtract %207, %212 : tensor<4x16xf32>
    %214 = stablehlo.exponential %213 : tensor<4x16xf32>
    %cst_58 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %215 = stablehlo.reduce(%214 init: %cst_58) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %216 = stablehlo.broadcast_in_dim %215, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %217 = stablehlo.broadcast_in_dim %216, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %218 = stablehlo.divide %214, %217 : tensor<4x16xf32>
    %cst_59 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %219 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %220 = stablehlo.multiply %218, %219 : tensor<4x16xf32>
    %221 = stablehlo.multiply %207, %207 : tensor<4x16xf32>
    %222 = stablehlo.multiply %221, %207 : tensor<4x16xf32>
    %cst_60 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %223 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %224 = stablehlo.multiply %223, %222 : tensor<4x16xf32>
    %225 = stablehlo.add %207, %224 : tensor<4x16xf32>
    %cst_61 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %226 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %227 = stablehlo.multiply %226, %225 : tensor<4x16xf32>
    %228 = stablehlo.tanh %227 : tensor<4x16xf32>
    %cst_62 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %229 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %230 = stablehlo.add %229, %228 : tensor<4x16xf32>
    %cst_63 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %231 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %232 = stablehlo.multiply %231, %230 : tensor<4x16xf32>
    %233 = stablehlo.multiply %207, %232 : tensor<4x16xf32>
    %234 = stablehlo.add %220, %233 : tensor<4x16xf32>
    %cst_64 = stablehlo.constant dense<1.000000e-39> : tensor<f32>
    %235 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %236 = stablehlo.multiply %234, %235 : tensor<4x16xf32>
    %cst_65 = stablehlo.constant dense<9.99999968E+37> : tensor<f32>
    %237 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %238 = stablehlo.multiply %236, %237 : tensor<4x16xf32>
    %239 = stablehlo.dot_general %238, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %240 = stablehlo.tanh %239 : tensor<4x16xf32>
    %cst_66 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %241 = stablehlo.reduce(%240 init: %cst_66) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %242 = stablehlo.broadcast_in_dim %241, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_67 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %243 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %244 = stablehlo.divide %242, %243 : tensor<4x1xf32>
    %245 = stablehlo.broadcast_in_dim %244, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %246 = stablehlo.subtract %240, %245 : tensor<4x16xf32>
    %247 = stablehlo.multiply %246, %246 : tensor<4x16xf32>
    %cst_68 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %248 = stablehlo.reduce(%247 init: %cst_68) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %249 = stablehlo.broadcast_in_dim %248, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_69 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %250 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %251 = stablehlo.divide %249, %250 : tensor<4x1xf32>
    %252 = stablehlo.broadcast_in_dim %244, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %253 = stablehlo.subtract %240, %252 : tensor<4x16xf32>
    %cst_70 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %254 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %255 = stablehlo.add %251, %254 : tensor<4x1xf32>
    %256 = stablehlo.sqrt %255 : tensor<4x1xf32>
    %257 = stablehlo.broadcast_in_dim %256, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %258 = stablehlo.divide %253, %257 : tensor<4x16xf32>
    %cst_71 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %259 = stablehlo.reduce(%258 init: %cst_71) applies stablehlo.maximum across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_72 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %260 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %261 = stablehlo.maximum %260, %259 : tensor<4xf32>
    %262 = stablehlo.broadcast_in_dim %261, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %263 = stablehlo.broadcast_in_dim %262, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %264 = stablehlo.subtract %258, %263 : tensor<4x16xf32>
    %265 = stablehlo.exponential %264 : tensor<4x16xf32>
    %cst_73 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %266 = stablehlo.reduce(%265 init: %cst_73) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %267 = stablehlo.broadcast_in_dim %266, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %268 = stablehlo.broadcast_in_dim %267, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %269 = stablehlo.divide %265, %268 : tensor<4x16xf32>
    %cst_74 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %270 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %271 = stablehlo.multiply %269, %270 : tensor<4x16xf32>
    %272 = stablehlo.multiply %258, %258 : tensor<4x16xf32>
    %273 = stablehlo.multiply %272, %258 : tensor<4x16xf32>
    %cst_75 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %274 = stablehlo.broadcast_in_dim %cst_75, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %275 = stablehlo.multiply %274, %273 : tensor<4x16xf32>
    %276 = stablehlo.add %258, %275 : tensor<4x16xf32>
    %cst_76 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %277 = stablehlo.broadcast_in_dim %cst_76, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %278 = stablehlo.multiply %277, %276 : tensor<4x16xf32>
    %279 = stablehlo.tanh %278 : tensor<4x16xf32>
    %cst_77 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %280 = stablehlo.broadcast_in_dim %cst_77, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %281 = stablehlo.add %280, %279 : tensor<4x16xf32>
    %cst_78 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %282 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %283 = stablehlo.multiply %282, %281 : tensor<4x16xf32>
    %284 = stablehlo.multiply %258, %283 : tensor<4x16xf32>
    %285 = stablehlo.add %271, %284 : tensor<4x16xf32>
    %286 = stablehlo.dot_general %285, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %287 = stablehlo.tanh %286 : tensor<4x16xf32>
    %cst_79 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %288 = stablehlo.reduce(%287 init: %cst_79) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %289 = stablehlo.broadcast_in_dim %288, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_80 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %290 = stablehlo.broadcast_in_dim %cst_80, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %291 = stablehlo.divide %289, %290 : tensor<4x1xf32>
    %292 = stablehlo.broadcast_in_dim %291, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %293 = stablehlo.subtract %287, %292 : tensor<4x16xf32>
    %294 = stablehlo.multiply %293, %293 : tensor<4x16xf32>
    %cst_81 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %295 = stablehlo.reduce(%294 init: %cst_81) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %296 = stablehlo.broadcast_in_dim %295, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_82 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %297 = stablehlo.broadcast_in_dim %cst_82, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %298 = stablehlo.divide %296, %297 : tensor<4x1xf32>
    %299 = stablehlo.broadcast_in_dim %291, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %300 = stablehlo.subtract %287, %299 : tensor<4x16xf32>
    %cst_83 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %301 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %302 = stablehlo.add %298, %301 : tensor<4x1xf32>
    %303 = stablehlo.sqrt %302 : tensor<4x1xf32>
    %304 = stablehlo.broadcast_in_dim %303, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %305 = stablehlo.divide %300, %304 : tensor<4x16xf32>
    %cst_84 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %306 = stablehlo.reduce(%305 init: %cst_84) applies stablehlo.maximum across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_85 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %307 = stablehlo.broadcast_in_dim %cst_85, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %308 = stablehlo.maximum %307, %306 : tensor<4xf32>
    %309 = stablehlo.broadcast_in_dim %308, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %310 = stablehlo.broadcast_in_dim %309, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %311 = stablehlo.subtract %305, %310 : tensor<4x16xf32>
    %312 = stablehlo.exponential %311 : tensor<4x16xf32>
    %cst_86 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %313 = stablehlo.reduce(%312 init: %cst_86) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %314 = stablehlo.broadcast_in_dim %313, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %315 = stablehlo.broadcast_in_dim %314, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %316 = stablehlo.divide %312, %315 : tensor<4x16xf32>
    %cst_87 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %317 = stablehlo.broadcast_in_dim %cst_87, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %318 = stablehlo.multiply %316, %317 : tensor<4x16xf32>
    %319 = stablehlo.multiply %305, %305 : tensor<4x16xf32>
    %320 = stablehlo.multiply %319, %305 : tensor<4x16xf32>
    %cst_88 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %321 = stablehlo.broadcast_in_dim %cst_88, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %322 = stablehlo.multiply %321, %320 : tensor<4x16xf32>
    %323 = stablehlo.add %305, %322 : tensor<4x16xf32>
    %cst_89 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %324 = stablehlo.broadcast_in_dim %cst_89, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %325 = stablehlo.multiply %324, %323 : tensor<4x16xf32>
    %326 = stablehlo.tanh %325 : tensor<4x16xf32>
    %cst_90 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %327 = stablehlo.broadcast_in_dim %cst_90, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %328 = stablehlo.add %327, %326 : tensor<4x16xf32>
    %cst_91 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %329 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %330 = stablehlo.multiply %329, %328 : tensor<4x16xf32>
    %331 = stablehlo.multiply %305, %330 : tensor<4x16xf32>
    %332 = stablehlo.add %318, %331 : tensor<4x16xf32>
    %333 = stablehlo.dot_general %332, %arg8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %334 = stablehlo.tanh %333 : tensor<4x16xf32>
    %cst_92 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %335 = stablehlo.reduce(%334 init: %cst_92) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %336 = stablehlo.broadcast_in_dim %335, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_93 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %337 = stablehlo.broadcast_in_dim %cst_93, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %338 = stablehlo.divide %336, %337 : tensor<4x1xf32>
    %339 = stablehlo.broadcast_in_dim %338, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %340 = stablehlo.subtract %334, %339 : tensor<4x16xf32>
    %341 = stablehlo.multiply %340, %340 : tensor<4x16xf32>
    %cst_94 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %342 = stablehlo.reduce(%341 init: %cst_94) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %343 = stablehlo.broadcast_in_dim %342, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_95 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %344 = stablehlo.broadcast_in_dim %cst_95, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %345 = stablehlo.divide %343, %344 : tensor<4x1xf32>
    %346 = stablehlo.broadcast_in_dim %338, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %347 = stablehlo.subtract %334, %346 : tensor<4x16xf32>
    %cst_96 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %348 = stablehlo.broadcast_in_dim %cst_96, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %349 = stablehlo.add %345, %348 : tensor<4x1xf32>
    %350 = stablehlo.sqrt %349 : tensor<4x1xf32>
    %351 = stablehlo.broadcast_in_dim %350, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %352 = stablehlo.divide %347, %351 : tensor<4x16xf32>
    %cst_97 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %353 = stablehlo.reduce(%352 init: %cst_97) applies stablehlo.maximum across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_98 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %354 = stablehlo.broadcast_in_dim %cst_98, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %355 = stablehlo.maximum %354, %353 : tensor<4xf32>
    %356 = stablehlo.broadcast_in_dim %355, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %357 = stablehlo.broadcast_in_dim %356, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %358 = stablehlo.subtract %352, %357 : tensor<4x16xf32>
    %359 = stablehlo.exponential %358 : tensor<4x16xf32>
    %cst_99 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %360 = stablehlo.reduce(%359 init: %cst_99) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %361 = stablehlo.broadcast_in_dim %360, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %362 = stablehlo.broadcast_in_dim %361, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %363 = stablehlo.divide %359, %362 : tensor<4x16xf32>
    %cst_100 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %364 = stablehlo.broadcast_in_dim %cst_100, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %365 = stablehlo.multiply %363, %364 : tensor<4x16xf32>
    %366 = stablehlo.multiply %352, %352 : tensor<4x16xf32>
    %367 = stablehlo.multiply %366, %352 : tensor<4x16xf32>
    %cst_101 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %368 = stablehlo.broadcast_in_dim %cst_101, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %369 = stablehlo.multiply %368, %367 : tensor<4x16xf32>
    %370 = stablehlo.add %352, %369 : tensor<4x16xf32>
    %cst_102 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %371 = stablehlo.broadcast_in_dim %cst_102, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %372 = stablehlo.multiply %371, %370 : tensor<4x16xf32>
    %373 = stablehlo.tanh %372 : tensor<4x16xf32>
    %cst_103 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %374 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %375 = stablehlo.add %374, %373 : tensor<4x16xf32>
    %cst_104 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %376 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %377 = stablehlo.multiply %376, %375 : tensor<4x16xf32>
    %378 = stablehlo.multiply %352, %377 : tensor<4x16xf32>
    %379 = stablehlo.add %365, %378 : tensor<4x16xf32>
    return %379 : tensor<4x16xf32>
  }
}
